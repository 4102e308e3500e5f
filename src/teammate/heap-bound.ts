/** How often a working teammate looks at its heap. */
const EVERY_MS = 1_000;

/** Past this many times its bound, a teammate does not finish its step: the heap grows faster than a step ends. */
const AT_ONCE_FACTOR = 2;

export interface HeapBoundOptions {
  /** The bound: bytes in use on V8's heap after a full collection. */
  readonly limitBytes: number;
  /** Bytes in use on V8's heap now (v8.getHeapStatistics().used_heap_size). */
  readonly usedBytes: () => number;
  /** A full collection, when the teammate has V8's gc: what is garbage does not count. */
  readonly collect: (() => void) | null;
  /** Over the bound: stop after the current step and exit, for the daemon to start it afresh. Called once. */
  readonly over: (usedBytes: number) => void;
  /** Far over it (AT_ONCE_FACTOR): exit now. */
  readonly overAtOnce: (usedBytes: number) => void;
  readonly everyMs?: number;
}

/**
 * Keeps a teammate's heap under its bound (the setting heapMaxBytes, 256 MiB by default): a leak
 * ends in a restart, not in the machine swapping. It is the teammate's own check because V8's
 * `--max-old-space-size` is read only from the command line, where any V8 flag costs every start
 * ~20 ms (platform/boot/teammate-v8.ts). It looks once a second while the teammate works and once as it
 * goes idle; an idle teammate allocates nothing and is not looked at. What it looks at is the heap
 * in use; past the bound it collects in full first, so only what is live counts.
 *
 * A hard bound it is not: a step that allocates a great deal at once is seen at the next look,
 * not stopped at the byte (V8's own limit, ~4 GiB here, still ends the process). Over the bound
 * the teammate stops after its current step and exits (70); past twice the bound, at once.
 */
export class HeapBound {
  private timer: NodeJS.Timeout | null = null;
  private wasTripped = false;

  constructor(private readonly options: HeapBoundOptions) {}

  /** A unit of work starts: look every second until it ends. */
  working(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.options.everyMs ?? EVERY_MS);
    // Never what keeps a stopping teammate alive.
    this.timer.unref();
  }

  /** The heap went past the bound (over was told): the teammate exits with HEAP_EXIT_CODE once it has stopped. */
  get tripped(): boolean {
    return this.wasTripped;
  }

  /** The teammate went idle: one look, then none until it works again. */
  idle(): void {
    this.close();
    this.check();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Whether the heap is over the bound, told once when it is. Once told, only twice the bound
   * is looked for (the teammate is stopping), so it does not collect in full every second.
   */
  check(): boolean {
    const { limitBytes, usedBytes, collect } = this.options;
    if (usedBytes() <= (this.wasTripped ? limitBytes * AT_ONCE_FACTOR : limitBytes)) return this.wasTripped;
    collect?.();
    const used = usedBytes();
    if (used > limitBytes * AT_ONCE_FACTOR) {
      this.close();
      this.options.overAtOnce(used);
      return true;
    }
    if (used > limitBytes && !this.wasTripped) {
      this.wasTripped = true;
      this.options.over(used);
    }
    return this.wasTripped;
  }
}
