import { assessReadiness } from './readiness.js';
import { SummaryCache, type SummaryCacheOptions } from './summary-cache.js';
import type { TaskStore, TaskSummary } from './task-store.js';

/**
 * Finds claim candidates without locks, cheaply enough to run before every claim.
 * The fast pass walks the ids seen by the last full pass with cached summaries; tasks added
 * since have higher ids than all of those, so they can only be the lowest ready task when the
 * fast pass finds nothing — and then a full pass runs: a fresh listing, and every task checked
 * on disk (a file whose identity shows the version already read is not read again). A board
 * is therefore never called empty on stale information; at worst a task released a moment
 * ago is passed over for a higher one.
 */
export class ReadyScanner {
  private knownIds: number[] = [];
  private readonly summaries: SummaryCache;

  /** Invalid versions already reported, by id: each is reported once, not on every scan. */
  private readonly reported = new Map<number, string>();

  constructor(
    private readonly store: TaskStore,
    fileOf: (id: number) => string,
    private readonly onProblem: (id: number, reason: string) => void = () => {},
    cache: Partial<SummaryCacheOptions> = {},
  ) {
    this.summaries = new SummaryCache({ fileOf, peekVersion: (id) => this.peek(id) }, cache);
  }

  private peek(id: number): ReturnType<TaskStore['peekVersion']> {
    const version = this.store.peekVersion(id);
    if (version?.problem !== undefined) {
      const key = `${version.stat.ino}:${version.stat.mtimeMs}:${version.problem}`;
      if (this.reported.get(id) !== key) {
        this.reported.set(id, key);
        this.onProblem(id, version.problem);
      }
    }
    return version;
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

  /** A task this process just wrote: later scans need not read it back. */
  remember(task: TaskSummary & { readonly id: number }): void {
    this.summaries.remember(task.id, { status: task.status, owner: task.owner, blockedBy: task.blockedBy });
  }

  private *readyIds(ids: readonly number[], verify: boolean): Generator<number> {
    // Blockers are looked up at most once per pass; most tasks have none and never get here.
    const seen = new Map<number, TaskSummary | undefined>();
    const lookup = (id: number): TaskSummary | undefined => {
      if (!seen.has(id)) seen.set(id, this.summary(id, verify));
      return seen.get(id);
    };
    for (const id of ids) {
      const task = this.summary(id, verify);
      if (task === undefined || task.status !== 'pending' || task.owner !== null) continue;
      if (task.blockedBy.length === 0 || assessReadiness(task, lookup).ready) yield id;
    }
  }

  private summary(id: number, verify: boolean): TaskSummary | undefined {
    return this.summaries.get(id, verify);
  }
}
