import { statIfAny } from '../../fs/stat-if-any.js';
import type { PeekedVersion, TaskSummary } from './task-store.js';

interface Entry {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly checkedAt: number;
  /** The scan pass in which this version was checked on disk (a stat or a read); 0 for none. */
  readonly pass: number;
  /** Read long enough after it was written that its identity cannot be confused with a later version's. */
  readonly settled: boolean;
  readonly summary: TaskSummary | undefined;
  /** Seen pending, then its file was replaced: most likely just claimed, and not read yet. */
  readonly presumedTaken?: boolean;
}

/** Where summaries come from: the task file's path (for a quick identity check) and a read that reports the identity of what it read. */
export interface SummarySource {
  fileOf(id: number): string;
  peekVersion(id: number): PeekedVersion | null;
}

export interface SummaryCacheOptions {
  /** How long a claimed or finished task is trusted not to have changed, without a stat. */
  readonly trustMs: number;
  /**
   * A version read sooner than this after it was written is never recognised by its identity
   * alone: file times come from a clock that ticks every 1-10 ms (1/HZ), so a later version
   * written within the same tick, reusing the inode number, could look identical.
   */
  readonly settledMs: number;
}

export const DEFAULT_SUMMARY_CACHE: SummaryCacheOptions = { trustMs: 5_000, settledMs: 25 };

/** The settle window for files whose times are whole seconds. */
const COARSE_SETTLED_MS = 2_000;

/**
 * What lock-free scans read from each task file, so a long-running claimer does not re-read
 * hundreds of taken tasks per claim. A completed task never changes, so it is trusted forever;
 * another task that is not pending is trusted for trustMs (a release shows up within that);
 * anything else is re-validated by its file identity (every write renames a new file in), and a
 * pending task whose file was replaced is presumed taken, unread, for trustMs.
 * Scans use this only to choose candidates: every claim re-reads under the lock, and a scan
 * that finds nothing is repeated with every task verified on disk before the board is called empty.
 */
export class SummaryCache {
  private readonly entries = new Map<number, Entry>();
  private readonly options: SummaryCacheOptions;
  /** The scan pass under way (0: none yet), and the last one begun. */
  private pass = 0;

  constructor(
    private readonly source: SummarySource,
    options: Partial<SummaryCacheOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = { ...DEFAULT_SUMMARY_CACHE, ...options };
  }

  /**
   * Starts a scan pass, which lasts until the next one begins: within it, a verifying get takes
   * what was already checked on disk in it, so a verifying walk right after a quick one does not
   * look at the same files twice. Without passes every verifying get looks at the file.
   */
  beginPass(): void {
    this.pass++;
  }

  /**
   * The task's summary, from the cache when it is known unchanged. With `verify`, nothing is taken
   * on trust: the file is at least looked at (a stat) in this pass, and read unless its identity shows the same settled version.
   */
  get(id: number, verify = false): TaskSummary | undefined {
    const cached = this.entries.get(id);
    if (verify && this.pass !== 0 && cached?.pass === this.pass) return cached.summary;
    const now = this.now();
    if (!verify && cached?.summary && this.trusted(cached, cached.summary, now)) return cached.summary;
    if (!verify && cached?.presumedTaken && now - cached.checkedAt < this.options.trustMs) return undefined;
    if (cached?.settled) {
      // Only a settled version can be recognised by identity; anything else is read again anyway.
      const stat = statIfAny(this.source.fileOf(id));
      if (stat === undefined) return this.forget(id);
      if (stat !== null && cached.ino === stat.ino && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs && cached.ctimeMs === stat.ctimeMs) {
        this.entries.set(id, { ...cached, checkedAt: now, pass: this.pass });
        return cached.summary;
      }
      if (stat !== null && !verify && cached.summary?.status === 'pending') {
        // A pending task whose file was replaced was almost always just claimed by someone else:
        // pass it over without reading it; it is read once the trust window ends, or by a verifying scan.
        this.entries.set(id, { ...unidentified(now, undefined), presumedTaken: true });
        return undefined;
      }
    }
    const version = this.source.peekVersion(id);
    if (version === null) return this.forget(id);
    const { stat, summary } = version;
    const settled = now - stat.ctimeMs > this.settledWindow(stat.ctimeMs);
    this.entries.set(id, { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, checkedAt: now, pass: this.pass, settled, summary });
    return summary;
  }

  private forget(id: number): undefined {
    this.entries.delete(id);
    return undefined;
  }

  /**
   * Records what this process just wrote. The file's identity is not known without a stat, so
   * the summary is only used while trusted (a claimed or finished task); after that it is read again.
   */
  remember(id: number, summary: TaskSummary): void {
    this.entries.set(id, unidentified(this.now(), summary));
  }

  /** File times on a filesystem that keeps whole seconds only (FAT, HFS+, small-inode ext4) need a wider window. */
  private settledWindow(ctimeMs: number): number {
    return ctimeMs % 1000 === 0 ? Math.max(COARSE_SETTLED_MS, this.options.settledMs) : this.options.settledMs;
  }

  private trusted(entry: Entry, summary: TaskSummary, now: number): boolean {
    if (summary.status === 'completed') return true;
    return summary.status !== 'pending' && now - entry.checkedAt < this.options.trustMs;
  }
}

/** An entry whose file identity is not known: never matched by a stat, so it is read again once no longer trusted. */
function unidentified(checkedAt: number, summary: TaskSummary | undefined): Entry {
  return { ino: -1, size: -1, mtimeMs: -1, ctimeMs: -1, checkedAt, pass: 0, settled: false, summary };
}
