/**
 * What a failed write to stdout or stderr does. A reader that went away (`teamd status | head -1`)
 * ends the command quietly with status 0, as `git log | head` does: the write fails with EPIPE.
 * Any other write error (a full disk under `> file`) ends it with status 1, and a failed stdout
 * says so in one line on stderr; never a stack.
 *
 * A command can take that over (`handle`): a daemon in the foreground outlives its stdout, and
 * the demo stops its daemon before it ends.
 */
export class ClosedPipe {
  private handler: (code: number) => void;

  constructor(
    exit: (code: number) => never,
    /** One line on stderr, as best it can (stderr may be failing too). */
    private readonly report: (line: string) => void,
  ) {
    this.handler = exit;
  }

  /** A write to `stream` failed (fd-writer.ts, or the stream's 'error' event). */
  failed(error: NodeJS.ErrnoException, stream: 'stdout' | 'stderr'): void {
    if (error.code === 'EPIPE') return this.handler(0);
    if (stream === 'stdout') this.report(`teamd: cannot write to standard output (${error.message})\n`);
    this.handler(1);
  }

  /** From now on a failed write calls this instead of ending the command; it may be called more than once. */
  readonly handle = (handler: (code: number) => void): void => {
    this.handler = handler;
  };
}
