/** How long a teammate stays idle before it collects: a task arriving right after the last one costs nothing. */
const QUIET_MS = 500;

/** How long after that it collects its young generation. */
const SETTLE_MS = 3_500;

/** V8's collections, as --expose-gc gives them. */
export interface Collector {
  /** A full collection (old and young generation). */
  full(): void;
  /** A collection of the young generation only (a scavenge: under a millisecond). */
  young(): void;
}

/**
 * Gives memory back once a teammate is idle after work. V8 collects its old generation only
 * when it grows, so an idle process keeps whatever its last task left: one full collection,
 * a quiet moment after the work, returns it (after 150 tasks heap 26.6 -> 18.2 MiB). The young
 * generation the work grew stays committed after it: V8 shrinks it in a collection that finds
 * allocation has stopped, which its memory reducer runs ~8 s later. Two scavenges a few seconds
 * on do it sooner, for under a millisecond each (docs/architecture.md, "Scale"); two more full
 * collections did it too, but cost a team of 50 a second of CPU after each round of work.
 * Once per idle spell that followed work, so empty wake-ups cost nothing; work in between puts
 * it off. Start-up counts as work: what loading the modules, reading the config and the first
 * scan of the board left is returned the first time the teammate is idle (resident 49.7 -> 48.7
 * MiB). Without V8's gc (--expose-gc) this does nothing.
 */
export class HeapTrim {
  /** Start-up is work. */
  private worked = true;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly collector: Collector | null,
    private readonly quietMs = QUIET_MS,
    private readonly settleMs = SETTLE_MS,
  ) {}

  /** A unit of work starts. */
  working(): void {
    this.worked = true;
    this.cancel();
  }

  /** The teammate went idle. */
  idle(): void {
    const collector = this.collector;
    if (!this.worked || !collector || this.timer) return;
    this.schedule(this.quietMs, () => {
      this.worked = false;
      collector.full();
      this.schedule(this.settleMs, () => {
        collector.young();
        collector.young();
      });
    });
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number, run: () => void): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      run();
    }, ms);
    // Never what keeps a stopping teammate alive.
    this.timer.unref();
  }
}
