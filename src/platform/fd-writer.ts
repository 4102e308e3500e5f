import fs from 'node:fs';

/**
 * A command's output, written with write(2) straight to its file descriptor. On Linux Node writes
 * process.stdout and stderr synchronously too, to files, pipes and terminals alike; building the
 * stream is what this spares, ~2-3 ms of every command's start (docs/architecture.md).
 *
 * The stream is still made where it is needed:
 * - a command that asks for it (`teamd watch` draws on the terminal, the daemon tees its log):
 *   from then on every write goes through it, so nothing is written out of order;
 * - a descriptor that is non-blocking (EAGAIN: a terminal or pipe someone else set so) and full:
 *   the rest goes through the stream, which waits for the reader, and so does every later write.
 * A write that fails otherwise (EPIPE: the reader went away) is reported to `failed`, as the
 * stream's 'error' event is.
 */
export class FdWriter {
  private stream: NodeJS.WriteStream | null = null;

  constructor(
    private readonly fd: number,
    private readonly makeStream: () => NodeJS.WriteStream,
    private readonly failed: (error: NodeJS.ErrnoException) => void,
    /** write(2): the bytes it wrote, from `offset` on. */
    private readonly writeSync: (fd: number, bytes: Buffer, offset: number) => number = (fd, bytes, offset) => fs.writeSync(fd, bytes, offset),
  ) {}

  readonly write = (text: string): void => {
    if (this.stream) {
      this.stream.write(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    try {
      // Each turn writes at least one byte or throws: the loop ends.
      while (offset < bytes.length) {
        const written = this.writeSync(this.fd, bytes, offset);
        if (written <= 0) break;
        offset += written;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
        this.failed(error as NodeJS.ErrnoException);
        return;
      }
    }
    if (offset < bytes.length) this.toStream().write(bytes.subarray(offset));
  };

  /** The stream, made (once) with `failed` listening for its errors; every later write goes through it. */
  toStream(): NodeJS.WriteStream {
    if (this.stream === null) {
      this.stream = this.makeStream();
      this.stream.on('error', this.failed);
    }
    return this.stream;
  }
}
