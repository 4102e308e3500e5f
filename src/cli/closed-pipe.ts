/**
 * What a failed write to stdout or stderr does. A reader that went away (`teamd status | head -1`)
 * ends the command quietly with status 0, as `git log | head` does: the write fails with EPIPE.
 * Any other write error on the terminal's streams ends it with status 1, also without a stack.
 *
 * A command can take that over (`handle`): a daemon in the foreground outlives its stdout, and
 * the demo stops its daemon before it ends.
 */
export class ClosedPipe {
  private handler: (code: number) => void;

  constructor(exit: (code: number) => never) {
    this.handler = exit;
  }

  /** A write to stdout or stderr failed (fd-writer.ts, or the stream's 'error' event). */
  readonly failed = (error: NodeJS.ErrnoException): void => {
    this.handler(error.code === 'EPIPE' ? 0 : 1);
  };

  /** From now on a failed write calls this instead of ending the command; it may be called more than once. */
  readonly handle = (handler: (code: number) => void): void => {
    this.handler = handler;
  };
}
