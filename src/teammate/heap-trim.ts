/** How long a teammate stays idle before it collects: a task arriving right after the last one costs nothing. */
const QUIET_MS = 500;

/** How long after that it collects again, to give back the young generation too. */
const SETTLE_MS = 2_500;

/**
 * Gives memory back once a teammate is idle after work. V8 collects its old generation only
 * when it grows, so an idle process keeps whatever its last task left: one full collection,
 * a quiet moment after the work, returns it (after 150 tasks heap 26.6 -> 18.2 MiB). The young
 * generation its work grew stays committed after that collection: V8 shrinks it only in a
 * collection that finds allocation has stopped, which its memory reducer runs ~8 s later. Two
 * more collections a few seconds on do it then: the first records that nothing was allocated
 * since, the second shrinks it (~2 MiB resident, three tasks each: 12.6-13.1 -> 10.7-10.9 MiB
 * of anonymous memory; one collection there gave back half; docs/architecture.md, "Scale").
 * Once per idle spell that followed work, so empty wake-ups cost nothing; work in between puts
 * it off. Start-up counts as work: what loading the modules, reading the config and the first
 * scan of the board left is returned the first time the teammate is idle (resident 49.7 -> 48.7
 * MiB). `collect` is V8's gc (--expose-gc); without it this does nothing.
 */
export class HeapTrim {
  /** Start-up is work. */
  private worked = true;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly collect: (() => void) | null,
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
    if (!this.worked || !this.collect || this.timer) return;
    const collect = this.collect;
    this.schedule(this.quietMs, () => {
      this.worked = false;
      collect();
      this.schedule(this.settleMs, () => {
        collect();
        collect();
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
