/**
 * A reader that went away (`teamd status | head -1`) ends the command quietly with status 0, as
 * `git log | head` does: the write fails with EPIPE, reported as an 'error' event on the stream.
 * Any other write error on the terminal's streams ends it with status 1, also without a stack.
 * Returns the function that takes the handlers off again (a daemon in the foreground outlives
 * its stdout).
 */
export function endQuietlyOnClosedPipe(streams: readonly NodeJS.WriteStream[], exit: (code: number) => never): () => void {
  const onError = (error: NodeJS.ErrnoException): void => {
    exit(error.code === 'EPIPE' ? 0 : 1);
  };
  for (const stream of streams) stream.on('error', onError);
  return () => {
    for (const stream of streams) stream.off('error', onError);
  };
}
