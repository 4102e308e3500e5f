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
  wrap(base: typeof fetch): typeof fetch {
    return async (input, init) => {
      this.arm();
      let response: Response;
      try {
        response = await base(input, init);
      } catch (error) {
        this.disarm();
        throw error;
      }
      if (!response.body) {
        this.disarm();
        return response;
      }
      const body = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform: (chunk, controller) => {
            this.arm();
            controller.enqueue(chunk);
          },
          flush: () => this.disarm(),
        }),
      );
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
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
