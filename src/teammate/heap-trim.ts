/** How long a teammate stays idle before it collects: a task arriving right after the last one costs nothing. */
const QUIET_MS = 500;

/**
 * Gives memory back once a teammate is idle after work. V8 collects its old generation only
 * when it grows, so an idle process keeps whatever its last task left: one full collection,
 * a quiet moment after the work, returns it (after 150 tasks heap 26.6 -> 18.2 MiB). Once per
 * idle spell that followed work, so empty wake-ups cost nothing. Start-up counts as work: what
 * loading the modules, reading the config and the first scan of the board left is returned the
 * first time the teammate is idle (resident 49.7 -> 48.7 MiB, docs/architecture.md "Scale").
 * `collect` is V8's gc (--expose-gc); without it this does nothing.
 */
export class HeapTrim {
  /** Start-up is work. */
  private worked = true;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly collect: (() => void) | null,
    private readonly quietMs = QUIET_MS,
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
    this.timer = setTimeout(() => {
      this.timer = null;
      this.worked = false;
      collect();
    }, this.quietMs);
    // Never what keeps a stopping teammate alive.
    this.timer.unref();
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
