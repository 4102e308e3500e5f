import readline from 'node:readline';

/**
 * The lines of a stream (a terminal or a pipe) as they come, taken one at a time, so a command
 * can wait for the person's next line and for something else at once. null once the stream ends.
 */
export class LineQueue {
  private readonly lines: string[] = [];
  private closed = false;
  private wakeUp: (() => void) | null = null;
  private readonly reader: readline.Interface;

  constructor(input: NodeJS.ReadableStream) {
    this.reader = readline.createInterface({ input, terminal: false });
    this.reader.on('line', (line) => {
      this.lines.push(line);
      this.wake();
    });
    this.reader.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Resolves once a line is there, the stream ended or `signal` aborts; takes nothing. */
  async ready(signal?: AbortSignal): Promise<void> {
    if (this.lines.length > 0 || this.closed || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        if (this.wakeUp === done) this.wakeUp = null;
        resolve();
      };
      this.wakeUp = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The next line; null when the stream ended or `signal` aborted first. */
  async next(signal?: AbortSignal): Promise<string | null> {
    await this.ready(signal);
    return signal?.aborted ? null : (this.lines.shift() ?? null);
  }

  /** Whether the stream has ended (lines it sent before may still be waiting to be taken). */
  get ended(): boolean {
    return this.closed;
  }

  /** A line already typed, taken without waiting; undefined when there is none. */
  take(): string | undefined {
    return this.lines.shift();
  }

  close(): void {
    this.reader.close();
  }

  private wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }
}
