import { setTimeout as sleep } from 'node:timers/promises';
import type { Bell } from '../contracts/team-store.js';

/** Looks caused by the doorbell are at least this far apart: a burst of files is one look per gap, not one per file. */
export const LOOK_GAP_MS = 20;

/**
 * When the supervisor looks for work to hand out: on every ring of its doorbell, and when asked
 * (a teammate went idle or exited). Asks coalesce into one look per turn of the event loop; rings
 * into one look per LOOK_GAP_MS (the first of a burst at once, the rest together after the gap).
 */
export class WakeScheduler {
  private scheduled = false;
  private lastLook = -Infinity;

  constructor(
    private readonly look: () => void,
    private readonly stopping: () => boolean,
    private readonly gapMs = LOOK_GAP_MS,
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
  async follow(bell: Bell): Promise<void> {
    while (!this.stopping()) {
      if ((await bell.wait()) === 'aborted') return;
      const wait = this.lastLook + this.gapMs - Date.now();
      if (wait > 0) {
        await sleep(wait);
        // Whatever rang meanwhile is covered by the look that follows now.
        bell.drain();
      }
      if (this.stopping()) return;
      this.lastLook = Date.now();
      this.look();
    }
  }
}
