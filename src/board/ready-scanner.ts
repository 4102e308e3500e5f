import { assessReadiness } from './readiness.js';
import { SummaryCache, type SummaryCacheOptions } from './summary-cache.js';
import type { TaskStore, TaskSummary } from './task-store.js';

/**
 * Finds claim candidates without locks, cheaply enough to run before every claim.
 * The fast pass walks the ids seen by the last full pass with cached summaries; tasks added
 * since have higher ids than all of those, so they can only be the lowest ready task when the
 * fast pass finds nothing — and then a full pass (fresh listing, fresh reads) runs. A board
 * is therefore never called empty on stale information; at worst a task released a moment
 * ago is passed over for a higher one.
 */
export class ReadyScanner {
  private knownIds: number[] = [];
  private readonly summaries: SummaryCache;

  constructor(
    private readonly store: TaskStore,
    private readonly fileOf: (id: number) => string,
    cache: Partial<SummaryCacheOptions> = {},
  ) {
    this.summaries = new SummaryCache(cache);
  }

  /** Ids that look ready, ascending; every one must still be re-checked under its lock. */
  *candidates(): Generator<number> {
    let found = false;
    for (const id of this.readyIds(this.knownIds, false)) {
      found = true;
      yield id;
    }
    if (found) return;
    this.knownIds = this.store.listIds();
    yield* this.readyIds(this.knownIds, true);
  }

  private *readyIds(ids: readonly number[], fresh: boolean): Generator<number> {
    const seen = new Map<number, TaskSummary | undefined>();
    const lookup = (id: number): TaskSummary | undefined => {
      if (!seen.has(id)) seen.set(id, this.summaries.get(id, this.fileOf, () => this.store.peek(id), fresh));
      return seen.get(id);
    };
    for (const id of ids) {
      const task = lookup(id);
      if (task && assessReadiness(task, lookup).ready) yield id;
    }
  }
}
