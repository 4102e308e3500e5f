import type { HttpFetch } from '../platform/http/http-fetch.js';
import type { HttpResponse } from '../platform/http/http-response.js';
import { HttpBody } from '../platform/http/http-body.js';

/**
 * Ends a model call that stops sending bytes: armed while a request is in flight (from the
 * fetch to the body's last byte, re-armed by each chunk), idle while the SDK waits to retry.
 */
export class StallWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private fired = false;

  constructor(
    private readonly stallMs: number,
    private readonly onStall: () => void,
  ) {}

  get stalled(): boolean {
    return this.fired;
  }

  /** A fetch that arms the watchdog for the request and re-arms it on every chunk of the answer. */
  wrap(base: HttpFetch): HttpFetch {
    return async (input, init) => {
      this.arm();
      let response: HttpResponse;
      try {
        response = await base(input, init);
      } catch (error) {
        this.disarm();
        throw error;
      }
      // Re-armed by each chunk as it arrives, disarmed by the last (or by a failure).
      if (response.body instanceof HttpBody) response.body.watch({ chunk: () => this.arm(), done: () => this.disarm() });
      else this.disarm();
      return response;
    };
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onStall();
    }, this.stallMs);
  }
}
