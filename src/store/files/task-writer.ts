import { isCommitted, TeamdError } from '../../errors.js';
import type { FileLocker, LockHandle } from '../../fs/file-lock.js';
import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import type { OwnerIndex } from './owner-index.js';
import type { ReadyScanner } from './ready-scanner.js';
import type { RevisionTokens } from './revision-tokens.js';
import type { Task } from '../../contracts/task.js';
import type { TaskStore } from './task-store.js';

export interface TaskWriterDeps {
  readonly paths: StatePaths;
  readonly store: TaskStore;
  readonly tokens: RevisionTokens;
  readonly owners: OwnerIndex;
  readonly scanner: ReadyScanner;
  readonly locker: FileLocker;
  readonly logger: Logger;
}

/**
 * The board's one way to write a task: under the task's lock, from the version on disk to its
 * successor, with the revision token that makes the write exclusive, the owner index kept in
 * step and the ready scanner told. What a write changes is the board's business (board.ts,
 * transitions.ts); how it is written safely is this file's.
 */
export class TaskWriter {
  constructor(private readonly deps: TaskWriterDeps) {}

  /** Changes one task under its lock: `change` gets the task as it is on disk and returns its successor (or throws to refuse). */
  async mutate(id: number, change: (task: Task) => Task): Promise<Task> {
    if (!this.deps.store.exists(id)) this.deps.store.require(id);
    const handle = await this.deps.locker.acquire(this.deps.paths.taskFile(id));
    try {
      return this.writeUnderLock(handle, id, change);
    } finally {
      await handle.release();
    }
  }

  /**
   * The read-check-write. Synchronous from the read to the rename so that no timer (and no
   * lock takeover noticed by one) can run in between; the bytes are compared again just
   * before the rename, so a write by a process that took a stale lock is never overwritten.
   */
  writeUnderLock(handle: LockHandle, id: number, change: (task: Task) => Task): Task {
    if (handle.compromised) throw lostLock(id);
    const { task, raw } = this.deps.store.require(id);
    const changed = change(task);
    // The exclusive step: only one writer of all that read this version gets to write its successor.
    const rev = this.deps.tokens.take(id, task.rev);
    const next = { ...changed, rev };
    const heldBy = holder(task);
    const nextHolder = holder(next);
    // The index entry exists before the task says so, and goes only once it no longer does (owner-index.ts).
    if (nextHolder !== null) this.deps.owners.add(nextHolder, id);
    const unsynced = this.writeOrDrop(next, rev, () => {
      // Defence in depth for a writer more than two versions behind, whose token was pruned.
      if (this.deps.store.readRaw(id) !== raw) {
        throw new TeamdError('CONCURRENT_WRITE', `task ${id} was changed by another process while locked; retry the command`, { details: { id } });
      }
    });
    if (heldBy !== null && heldBy !== nextHolder) this.deps.owners.remove(heldBy, id);
    this.deps.tokens.prune(id, rev);
    this.deps.scanner.remember(next);
    // A failed task is worth a look: a warning, not one more info line.
    const line = { taskId: id, status: next.status, owner: next.owner, claim: next.claim };
    if (next.status === 'failed') this.deps.logger.warn({ ...line, reason: next.result }, 'task failed');
    else this.deps.logger.info(line, 'task updated');
    if (unsynced !== null) throw unsynced;
    return next;
  }

  /**
   * Writes the task, or drops the revision token taken for it when the write did not happen. A
   * write that happened but was not synced (errors.ts, writtenNotSynced) is returned, for the
   * caller to finish its bookkeeping of a write that stands and then throw it.
   */
  writeOrDrop(task: Task, rev: number, beforeRename?: () => void): Error | null {
    try {
      this.deps.store.write(task, beforeRename);
      return null;
    } catch (error) {
      if (isCommitted(error)) return error;
      this.deps.tokens.drop(task.id, rev);
      throw error;
    }
  }
}

/** Who holds the task: its owner while it is in progress. */
function holder(task: Task): string | null {
  return task.status === 'in_progress' ? task.owner : null;
}

function lostLock(id: number): TeamdError {
  return new TeamdError('CONCURRENT_WRITE', `lost the lock on task ${id} before writing (the process stalled); retry the command`, { details: { id } });
}
