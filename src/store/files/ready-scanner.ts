import { assessReadiness } from '../../domain/readiness.js';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SUMMARY_CACHE, SummaryCache, type SummaryCacheOptions } from './summary-cache.js';
import type { TaskStore, TaskSummary } from './task-store.js';

interface FolderTimes {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

function statIfAny(dir: string): FolderTimes | null {
  try {
    const stat = fs.statSync(dir);
    return { ino: stat.ino, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs };
  } catch {
    return null;
  }
}

function sameVersion(a: FolderTimes, b: FolderTimes | null): boolean {
  return b !== null && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

const COMPLETED: TaskSummary = { status: 'completed', owner: null, blockedBy: [] };

/**
 * Finds claim candidates without locks, cheaply enough to run before every claim.
 * The fast pass walks the ids seen by the last full pass with cached summaries; tasks added
 * since have higher ids than all of those, so they come after them — and when the consumer wants
 * more than the fast pass found (or it found nothing), a full pass runs: a fresh listing, and
 * every task checked on disk (a file whose identity shows the version already read is not read
 * again), yielding what the fast pass did not. A board
 * is therefore never called empty on stale information; at worst a task released a moment
 * ago is passed over for a higher one.
 */
export class ReadyScanner {
  private knownIds: number[] = [];
  /** Blockers seen completed: they stay so. */
  private readonly completed = new Set<number>();
  private readonly summaries: SummaryCache;

  /** Invalid versions already reported, by id: each is reported once, not on every scan. */
  private readonly reported = new Map<number, string>();

  /** The live folder's times when a full pass last found nothing ready. */
  private quiet: FolderTimes | null = null;
  private readonly settledMs: number;

  constructor(
    private readonly store: TaskStore,
    fileOf: (id: number) => string,
    private readonly onProblem: (id: number, reason: string) => void = () => {},
    cache: Partial<SummaryCacheOptions> = {},
    private readonly dir: string = path.dirname(fileOf(1)),
    private readonly now: () => number = Date.now,
  ) {
    this.summaries = new SummaryCache({ fileOf, peekVersion: (id) => this.peek(id) }, cache);
    this.settledMs = Math.max(DEFAULT_SUMMARY_CACHE.settledMs, cache.settledMs ?? 0);
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

  /**
   * Ids that look ready, ascending; every one must still be re-checked under its lock. When the
   * last full pass found nothing and the live folder has not changed since (nothing added,
   * replaced or moved out: every write renames a file in it), nothing is read at all.
   */
  *candidates(): Generator<number> {
    // The folder as it is before anything is read: a write after this moves its times, so a
    // folder found the same later has nothing this pass did not see.
    const before = statIfAny(this.dir);
    if (this.quiet !== null && sameVersion(this.quiet, before)) return;
    this.quiet = null;
    this.summaries.beginPass();
    let found = false;
    const yielded = new Set<number>();
    for (const id of this.readyIds(this.knownIds, false)) {
      found = true;
      yielded.add(id);
      yield id;
    }
    // Asked for more than the quick walk found (a claimer passing over the tasks it declined, the
    // daemon counting ready tasks): the rest come from a full pass, so a task added since is seen
    // beside them. A consumer that stops at the first one never gets here.
    // Files the quick walk just looked at on disk are not looked at again (summary-cache.ts).
    this.knownIds = this.store.listIds();
    for (const id of this.readyIds(this.knownIds, true)) {
      found = true;
      if (yielded.has(id)) continue;
      yield id;
    }
    // Only a settled folder time can be trusted: a change within the same clock tick would not move it.
    const settle = before !== null && before.mtimeMs % 1000 === 0 ? Math.max(2_000, this.settledMs) : this.settledMs;
    if (!found && before !== null && this.now() - before.mtimeMs > settle) this.quiet = before;
  }

  /** A task this process just wrote: later scans need not read it back. */
  remember(task: TaskSummary & { readonly id: number }): void {
    this.summaries.remember(task.id, { status: task.status, owner: task.owner, blockedBy: task.blockedBy, role: task.role });
  }

  private *readyIds(ids: readonly number[], verify: boolean): Generator<number> {
    // Blockers are looked up at most once per pass; most tasks have none and never get here.
    const seen = new Map<number, TaskSummary | undefined>();
    const lookup = (id: number): TaskSummary | undefined => {
      if (!seen.has(id)) seen.set(id, this.summary(id, verify) ?? this.finished(id));
      return seen.get(id);
    };
    for (const id of ids) {
      const task = this.summary(id, verify);
      if (task === undefined || task.status !== 'pending' || task.owner !== null) continue;
      if (task.blockedBy.length === 0 || assessReadiness(task, lookup).ready) yield id;
    }
  }

  /** The role a task is meant for, as last read (null when it names none). */
  roleOf(id: number): string | null {
    return this.summaries.get(id)?.role ?? null;
  }

  /**
   * A blocker that is not in the live folder: finished, in done/. A completed task never changes,
   * so it is read once; a failed or cancelled one may be put back, so it is read on every pass.
   */
  private finished(id: number): TaskSummary | undefined {
    if (this.completed.has(id)) return COMPLETED;
    const read = this.store.read(id);
    if (read.kind !== 'ok') return undefined;
    if (read.task.status === 'completed') this.completed.add(id);
    return { status: read.task.status, owner: read.task.owner, blockedBy: read.task.blockedBy };
  }

  private summary(id: number, verify: boolean): TaskSummary | undefined {
    return this.summaries.get(id, verify);
  }
}
