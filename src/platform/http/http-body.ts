/** Where an answer's bytes come from: paused while the reader is behind, destroyed when it gives up. */
export interface BodySource {
  pause(): void;
  resume(): void;
  cancel(): void;
}

/** Told as the bytes arrive, not as they are read: the stall watchdog (model/stall-watchdog.ts). */
export interface BodyObserver {
  chunk(): void;
  /** The last byte arrived, or the body failed or was cancelled; called once. */
  done(): void;
}

/** The reader of fetch's body stream, for callers that read it that way. */
export interface BodyReader {
  read(): Promise<IteratorResult<Uint8Array, undefined>>;
  releaseLock(): void;
  cancel(): Promise<void>;
}

/** Chunks queued before the source is paused. */
const HIGH_WATER = 16;

/**
 * An answer's body as an async iterable of bytes: the part of a web ReadableStream the SDK reads
 * (it iterates a body that is async iterable, and cancels it through the iterator's return),
 * plus getReader, tee and locked as fetch's body has them. It exists to keep Node's web streams
 * unloaded in a teammate: their first use costs a process ~1 MiB it never gives back
 * (docs/architecture.md, "Scale"). One reader at a time, as with a web stream; toWeb() gives a
 * real web stream for a caller that needs one (an MCP client pipes the body through its own).
 */
export class HttpBody implements AsyncIterable<Uint8Array> {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private failure: { error: unknown } | null = null;
  private cancelled = false;
  private paused = false;
  private taken = false;
  private wake: (() => void) | null = null;
  private readonly observers: BodyObserver[] = [];
  private observed = false;

  constructor(private readonly source: BodySource) {}

  /** A body its caller feeds by hand, with nothing to pause or destroy (tests). */
  static fed(): HttpBody {
    return new HttpBody({ pause() {}, resume() {}, cancel() {} });
  }

  get locked(): boolean {
    return this.taken;
  }

  /** The producer: the next chunk arrived. */
  push(chunk: Uint8Array): void {
    if (this.settled) return;
    this.queue.push(chunk);
    for (const observer of this.observers) observer.chunk();
    if (this.queue.length >= HIGH_WATER && !this.paused) {
      this.paused = true;
      this.source.pause();
    }
    this.notify();
  }

  /** The producer: the last chunk arrived. */
  end(): void {
    if (this.settled) return;
    this.ended = true;
    this.finish();
  }

  /** The producer: the body failed before its end (the connection closed, the call was aborted). */
  fail(error: unknown): void {
    if (this.settled) return;
    // As a web stream errors: what was queued and not read is dropped.
    this.queue.length = 0;
    this.failure = { error };
    this.finish();
  }

  /** Stops reading: the source is destroyed and what was queued is dropped. */
  async cancel(): Promise<void> {
    if (this.cancelled) return;
    const wasSettled = this.settled;
    this.cancelled = true;
    this.queue.length = 0;
    if (!wasSettled) {
      this.source.cancel();
      this.finish();
    }
    this.notify();
  }

  watch(observer: BodyObserver): void {
    if (this.settled) return observer.done();
    this.observers.push(observer);
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array, undefined> {
    if (this.taken) throw new TypeError('the body is already being read');
    this.taken = true;
    return {
      next: () => this.next(),
      return: async () => {
        await this.cancel();
        return { done: true, value: undefined };
      },
    };
  }

  getReader(): BodyReader {
    const iterator = this[Symbol.asyncIterator]();
    return {
      read: () => iterator.next(),
      releaseLock: () => {
        this.taken = false;
      },
      cancel: async () => {
        await iterator.return!();
      },
    };
  }

  /** Two bodies with the same bytes, for Response.clone(); this one is read to feed them. */
  tee(): [HttpBody, HttpBody] {
    const iterator = this[Symbol.asyncIterator]();
    let cancelledBranches = 0;
    const branch = (): HttpBody =>
      new HttpBody({
        pause() {},
        resume() {},
        cancel() {
          if (++cancelledBranches === 2) void iterator.return!();
        },
      });
    const branches: [HttpBody, HttpBody] = [branch(), branch()];
    void (async () => {
      try {
        for (let result = await iterator.next(); !result.done; result = await iterator.next()) for (const body of branches) body.push(result.value);
        for (const body of branches) body.end();
      } catch (error) {
        for (const body of branches) body.fail(error);
      }
    })();
    return branches;
  }

  /** The same bytes as a web ReadableStream (loads Node's web streams). */
  toWeb(): ReadableStream<Uint8Array> {
    const iterator = this[Symbol.asyncIterator]();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const result = await iterator.next();
        if (result.done) controller.close();
        else controller.enqueue(result.value);
      },
      async cancel() {
        await iterator.return!();
      },
    });
  }

  private get settled(): boolean {
    return this.ended || this.failure !== null || this.cancelled;
  }

  private async next(): Promise<IteratorResult<Uint8Array, undefined>> {
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk) {
        if (this.paused && this.queue.length <= HIGH_WATER / 2) {
          this.paused = false;
          this.source.resume();
        }
        return { done: false, value: chunk };
      }
      if (this.failure && !this.cancelled) throw this.failure.error;
      if (this.settled) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private finish(): void {
    if (!this.observed) {
      this.observed = true;
      for (const observer of this.observers.splice(0)) observer.done();
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
