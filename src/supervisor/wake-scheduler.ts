import type { Doorbell } from '../watch/doorbell.js';

/**
 * When the supervisor looks for sleepers to wake: on every ring of its doorbell, and when asked
 * (a teammate went idle or exited); bursts coalesce into one look per turn of the event loop.
 */
export class WakeScheduler {
  private scheduled = false;

  constructor(
    private readonly look: () => void,
    private readonly stopping: () => boolean,
  ) {}

  /** Looks once at the next turn of the event loop, however many times it is asked before then. */
  schedule(): void {
    if (this.scheduled || this.stopping()) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.look();
    });
  }

  /** Looks after every ring until the bell closes or the supervisor stops. */
  async follow(bell: Doorbell): Promise<void> {
    while (!this.stopping()) {
      if ((await bell.wait()) === 'aborted') return;
      this.look();
    }
  }
}
