import fs from 'node:fs';
import type { TaskSummary } from './task-store.js';

interface Entry {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly checkedAt: number;
  /** Read long enough after it was written that its identity cannot be confused with a later version's. */
  readonly settled: boolean;
  readonly summary: TaskSummary | undefined;
}

export interface SummaryCacheOptions {
  /** How long a claimed or finished task is trusted not to have changed, without a stat. */
  readonly trustMs: number;
  /** Only versions older than this are cached: file times tick coarsely, so two quick versions can look alike. */
  readonly settledMs: number;
}

export const DEFAULT_SUMMARY_CACHE: SummaryCacheOptions = { trustMs: 1_000, settledMs: 200 };

/**
 * What lock-free scans read from each task file, so a long-running claimer does not re-read
 * hundreds of taken tasks per claim. A completed task never changes, so it is trusted forever;
 * another task that is not pending is trusted for trustMs (a release shows up within that);
 * anything else is re-validated by its file identity (every write renames a new file in).
 * Scans use this only to choose candidates: every claim re-reads under the lock, and a scan
 * that finds nothing is repeated without the cache before the board is called empty.
 */
export class SummaryCache {
  private readonly entries = new Map<number, Entry>();
  private readonly options: SummaryCacheOptions;

  constructor(options: Partial<SummaryCacheOptions> = {}, private readonly now: () => number = Date.now) {
    this.options = { ...DEFAULT_SUMMARY_CACHE, ...options };
  }

  /** The task's summary, from the cache when it is known unchanged; `fresh` always reads (and refreshes the cache). */
  get(id: number, fileOf: (id: number) => string, read: () => TaskSummary | undefined, fresh = false): TaskSummary | undefined {
    const cached = fresh ? undefined : this.entries.get(id);
    const now = this.now();
    if (cached?.summary && this.trusted(cached, cached.summary, now)) return cached.summary;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(fileOf(id));
    } catch {
      this.entries.delete(id);
      return undefined;
    }
    if (cached?.settled && cached.ino === stat.ino && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs && cached.ctimeMs === stat.ctimeMs) {
      this.entries.set(id, { ...cached, checkedAt: now });
      return cached.summary;
    }
    const summary = read();
    const settled = now - stat.ctimeMs > this.options.settledMs;
    this.entries.set(id, { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, checkedAt: now, settled, summary });
    return summary;
  }

  private trusted(entry: Entry, summary: TaskSummary, now: number): boolean {
    if (summary.status === 'completed') return true;
    return summary.status !== 'pending' && now - entry.checkedAt < this.options.trustMs;
  }
}
