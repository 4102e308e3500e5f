import type { Logger } from '../log/logger.js';
import type { Member } from '../contracts/roster.js';

/**
 * Publishes a host's roster to a shared store, one write at a time: changes that come while a
 * write runs are folded into the next one (only the latest roster matters). A failed write is
 * retried by a timer, backing off to 30 s; `published()` resolves once the latest roster is in.
 */
export class MemberPublisher {
  private latest: readonly Member[] | null = null;
  private writing: Promise<void> | null = null;
  private retryMs = 500;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly publish: (members: readonly Member[]) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  changed(members: readonly Member[]): void {
    this.latest = members;
    if (!this.writing && !this.timer) this.writing = this.flush();
  }

  /** Resolves when what was last changed is in the store (or the publisher is closed). */
  async published(): Promise<void> {
    // Bounded: each round writes the newest roster; it loops only while rosters keep coming.
    while (this.writing) await this.writing;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async flush(): Promise<void> {
    try {
      while (this.latest && !this.closed) {
        const members = this.latest;
        this.latest = null;
        try {
          await this.publish(members);
          this.retryMs = 500;
        } catch (error) {
          this.latest ??= members;
          this.logger.warn({ err: error, retryMs: this.retryMs }, 'could not publish the roster to the store; retrying');
          this.timer = setTimeout(() => {
            this.timer = undefined;
            if (!this.writing) this.writing = this.flush();
          }, this.retryMs);
          this.timer.unref();
          this.retryMs = Math.min(this.retryMs * 2, 30_000);
          return;
        }
      }
    } finally {
      this.writing = null;
    }
  }
}
