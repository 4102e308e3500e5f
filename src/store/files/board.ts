import { TeamdError } from '../../errors.js';
import type { FileLocker, LockHandle } from '../../fs/file-lock.js';
import { TaskWriter } from './task-writer.js';
import type { Logger } from '../../log/logger.js';
import { parseName } from '../../contracts/names.js';
import type { StatePaths } from '../../paths.js';
import { assessReadiness, findCycle, type StatusLookup } from '../../domain/readiness.js';
import { MAX_RESULT_CHARS, newTask, type Task, type TaskWorktree, isTerminal } from '../../contracts/task.js';
import { withNewWorktree, withWorktreeChange, worktreeFor } from '../../domain/worktree-spec.js';
import { claimNext, claimOrder, passedOver } from './claim-next.js';
import { ReadyScanner } from './ready-scanner.js';
import { RevisionTokens } from './revision-tokens.js';
import { TaskStore } from './task-store.js';
import { OwnerIndex } from './owner-index.js';
import { allocateId, recordNextId } from './id-allocator.js';
import { reconcileBoard } from './board-reconcile.js';
import { countFileBoard } from './board-counts.js';
import * as transitions from '../../domain/transitions.js';
import { checkNewTask, dedupe, validateText } from '../../domain/validation.js';
import type { Actor, BoardCounts, BoardListing, CorruptTask, NewTask, TaskFilter, TaskView } from '../../contracts/board-types.js';
import { isoTime } from '../../platform/iso-time.js';

export type { BoardListing, NewTask, TaskFilter, TaskView };

export interface BoardDeps {
  readonly paths: StatePaths;
  readonly locker: FileLocker;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/**
 * The shared task board: one JSON file per task, every change a read-check-write under that
 * task's lock. Id allocation and dependency edits also hold the board lock, so two writers
 * can never close a cycle between them.
 */
export class Board {
  private readonly store: TaskStore;
  private readonly paths: StatePaths;
  private readonly locker: FileLocker;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly scanner: ReadyScanner;
  private readonly tokens: RevisionTokens;
  private readonly owners: OwnerIndex;
  private readonly writer: TaskWriter;

  constructor(deps: BoardDeps) {
    this.paths = deps.paths;
    this.store = new TaskStore(deps.paths);
    this.owners = new OwnerIndex(deps.paths);
    this.locker = deps.locker;
    this.logger = deps.logger;
    this.now = deps.now ?? (() => new Date());
    this.scanner = new ReadyScanner(this.store, this.paths.taskFile, (id, reason) =>
      this.logger.warn(
        { taskId: id, file: this.paths.taskFile(id), reason },
        'invalid task file skipped by claims (left untouched): fix it or move it out of the tasks folder',
      ),
    );
    this.tokens = new RevisionTokens({
      paths: this.paths,
      unknownWriterGraceMs: this.locker.timings.staleMs,
      currentRev: (id) => {
        const read = this.store.read(id);
        return read.kind === 'ok' ? read.task.rev : null;
      },
    });
    this.writer = new TaskWriter({
      paths: this.paths,
      store: this.store,
      tokens: this.tokens,
      owners: this.owners,
      scanner: this.scanner,
      locker: this.locker,
      logger: this.logger,
    });
  }

  async add(input: NewTask): Promise<Task> {
    const { subject, description, blockedBy, role, key } = checkNewTask(input);
    this.store.ensureDir();
    return this.locker.withLock(this.paths.boardLock, () => {
      // Under the board lock, as every add: two adds of one key never both make a task.
      const existing = key === undefined ? undefined : this.list().tasks.find((task) => task.key === key);
      if (existing) return existing;
      this.refuseUnknownBlockers(blockedBy);
      const id = allocateId({ paths: this.paths, store: this.store, tokens: this.tokens, logger: this.logger });
      const worktree = input.worktree ? worktreeFor(id, subject, input.worktree) : undefined;
      const task = newTask(id, { subject, description, blockedBy, role, worktree, createdBy: input.createdBy, key }, this.timestamp());
      const unsynced = this.writer.writeOrDrop(task, 0);
      // The task is on the board from here: the counter is only where the next add starts looking.
      recordNextId(this.paths, id + 1, this.logger);
      this.logger.info({ taskId: id, blockedBy }, 'task added');
      if (unsynced !== null) throw unsynced;
      return task;
    });
  }

  /**
   * Tasks with their readiness. Asking only for pending or in-progress tasks (or ready ones) reads
   * only the live folder; anything else reads the finished ones too.
   */
  list(filter: TaskFilter = {}): BoardListing {
    const liveOnly = filter.ready === true || filter.status === 'pending' || filter.status === 'in_progress';
    const tasks: Task[] = [];
    const problems: CorruptTask[] = [];
    for (const id of liveOnly ? this.store.listIds() : this.store.listAllIds()) {
      const read = this.store.read(id);
      if (read.kind === 'ok') tasks.push(read.task);
      else if (read.kind === 'corrupt') problems.push({ id, file: read.file, reason: read.reason });
    }
    for (const problem of problems) this.logger.warn(problem, 'corrupt task file skipped (left untouched)');
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const fromDisk = this.lookupFromDisk();
    const lookup: StatusLookup = (id) => byId.get(id) ?? (liveOnly ? fromDisk(id) : undefined);
    const views = tasks
      .map((task) => ({ ...task, ...assessReadiness(task, lookup) }))
      .filter(
        (view) =>
          (filter.status === undefined || view.status === filter.status) &&
          (filter.owner === undefined || view.owner === filter.owner) &&
          (filter.ready === undefined || view.ready === filter.ready),
      );
    return { tasks: views, problems };
  }

  /**
   * The board by status, the first `failedShown` failed tasks and the files that are not valid
   * tasks: what a listing would give `teamd status`, without reading every finished task (board-counts.ts).
   */
  counts(failedShown: number): BoardCounts {
    const counted = countFileBoard(this.store, this.paths, failedShown);
    for (const problem of counted.problems) this.logger.warn(problem, 'corrupt task file skipped (left untouched)');
    return counted;
  }

  /**
   * The tasks `name` has in progress, from the owner index: no listing of the board. Index entries
   * whose task is finished or gone are removed; call this only from the owner's own process, or
   * while the owner is not running (see owner-index.ts).
   */
  ownedBy(name: string): Task[] {
    const owned: Task[] = [];
    for (const id of this.owners.idsOf(name)) {
      const read = this.store.read(id);
      if (read.kind === 'ok' && read.task.status === 'in_progress' && read.task.owner === name) owned.push(read.task);
      else if (read.kind === 'missing' || (read.kind === 'ok' && isTerminal(read.task.status))) this.owners.remove(name, id);
    }
    return owned;
  }

  /** Up to `limit` tasks that look ready now (lock-free; a claim re-checks each), lowest id first, with the role each is meant for. */
  readyTasks(limit: number): { id: number; role: string | null }[] {
    const ready: { id: number; role: string | null }[] = [];
    if (limit <= 0) return ready;
    for (const id of this.scanner.candidates()) {
      ready.push({ id, role: this.scanner.roleOf(id) });
      if (ready.length >= limit) break;
    }
    return ready;
  }

  /**
   * Brings the files in line with the layout after a crash or an upgrade (board-reconcile.ts).
   * Reads only the live folder.
   */
  reconcile(): Promise<{ moved: number; indexed: number }> {
    return reconcileBoard({ paths: this.paths, store: this.store, owners: this.owners, locker: this.locker, logger: this.logger });
  }

  get(id: number): TaskView {
    const { task } = this.store.require(id);
    return { ...task, ...assessReadiness(task, this.lookupFromDisk()) };
  }

  async claim(id: number, owner: string): Promise<Task> {
    parseName(owner, 'owner');
    return this.writer.mutate(id, (task) => transitions.claimTask(task, owner, assessReadiness(task, this.lookupFromDisk()), this.timestamp()));
  }

  /** Claims the lowest-id ready task, or returns null when none can be claimed now (see claim-next.ts for why it always ends). */
  async claimNext(owner: string, options: { skip?: ReadonlySet<number>; prefer?: readonly number[] } = {}): Promise<Task | null> {
    parseName(owner, 'owner');
    const skip = options.skip ?? new Set<number>();
    const prefer = options.prefer ?? [];
    return claimNext({
      // Preferred ids (the daemon's hint) first: no scan at all when one of them is still free.
      candidates: () => claimOrder(prefer, this.scanner.candidates(), skip),
      locker: this.locker,
      taskFile: this.paths.taskFile,
      claimUnderLock: (handle, id) => this.claimUnderLock(handle, id, owner),
    });
  }

  async complete(id: number, actor: Actor, result: string | null = null): Promise<Task> {
    const checked = result === null ? null : validateText('result', result, MAX_RESULT_CHARS, false);
    return this.writer.mutate(id, (task) => transitions.completeTask(task, actor, checked, this.timestamp()));
  }

  async fail(id: number, actor: Actor, reason: string): Promise<Task> {
    const checked = validateText('reason', reason, MAX_RESULT_CHARS, true);
    return this.writer.mutate(id, (task) => transitions.failTask(task, actor, checked, this.timestamp()));
  }

  async cancel(id: number): Promise<Task> {
    return this.writer.mutate(id, (task) => transitions.cancelTask(task, this.timestamp()));
  }

  async release(id: number, actor: Actor = {}): Promise<Task> {
    return this.writer.mutate(id, (task) => transitions.releaseTask(task, actor, this.timestamp()));
  }

  /** Gives a pending task without one a worktree (create_worktree). */
  async giveWorktree(id: number, spec: { readonly name?: string | undefined; readonly base: string }): Promise<Task> {
    return this.writer.mutate(id, (task) => withNewWorktree(task, spec, this.timestamp()));
  }

  /** Changes a task's worktree record (its state, commit, conflicts), under the task's lock. */
  async setWorktree(id: number, change: (worktree: TaskWorktree) => TaskWorktree): Promise<Task> {
    return this.writer.mutate(id, (task) => withWorktreeChange(task, change, this.timestamp()));
  }

  /** Replaces a pending task's blockers; unknown ids, self-edges and cycles are refused. */
  async setBlockers(id: number, rawBlockedBy: readonly number[]): Promise<Task> {
    const blockedBy = dedupe(rawBlockedBy);
    return this.locker.withLock(this.paths.boardLock, () => {
      this.refuseUnknownBlockers(blockedBy);
      if (blockedBy.includes(id)) {
        throw new TeamdError('DEPENDENCY_CYCLE', `task ${id} cannot be blocked by itself`, { details: { id, cycle: [id, id] } });
      }
      const lookup = this.lookupFromDisk();
      const cycle = findCycle(id, blockedBy, (other) => lookup(other)?.blockedBy ?? []);
      if (cycle) {
        throw new TeamdError('DEPENDENCY_CYCLE', `refused: task ${id} blocked by ${blockedBy.join(', ')} would close the cycle ${cycle.join(' -> ')}`, {
          details: { id, cycle },
        });
      }
      return this.writer.mutate(id, (task) => transitions.updateBlockers(task, blockedBy, this.timestamp()));
    });
  }

  private claimUnderLock(handle: LockHandle, id: number, owner: string): Task | null {
    try {
      return this.writer.writeUnderLock(handle, id, (task) =>
        transitions.claimTask(task, owner, assessReadiness(task, this.lookupFromDisk()), this.timestamp()),
      );
    } catch (error) {
      if (passedOver(error)) return null;
      throw error;
    }
  }

  /** Reads tasks on demand, each at most once per lookup. Missing and corrupt tasks read as undefined. */
  private lookupFromDisk(): (id: number) => Task | undefined {
    const cache = new Map<number, Task | undefined>();
    return (id) => {
      if (!cache.has(id)) {
        const read = this.store.read(id);
        cache.set(id, read.kind === 'ok' ? read.task : undefined);
      }
      return cache.get(id);
    };
  }

  private refuseUnknownBlockers(blockedBy: readonly number[]): void {
    const unknown = blockedBy.filter((id) => !this.store.exists(id));
    if (unknown.length > 0) {
      throw new TeamdError('UNKNOWN_BLOCKER', `unknown blocker task id(s): ${unknown.join(', ')} (see: teamd task list)`, {
        details: { unknown },
      });
    }
  }

  private timestamp(): string {
    return isoTime(this.now());
  }
}
