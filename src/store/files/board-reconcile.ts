import { TeamdError } from '../../errors.js';
import { statIfAny } from '../../fs/stat-if-any.js';
import { sameVersion } from './done-index.js';
import type { FileLocker } from '../../fs/file-lock.js';
import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import type { OwnerIndex } from './owner-index.js';
import { isTerminal } from '../../contracts/task.js';
import type { TaskStore } from './task-store.js';

export interface ReconcileDeps {
  readonly paths: StatePaths;
  readonly store: TaskStore;
  readonly owners: OwnerIndex;
  readonly locker: FileLocker;
  readonly logger: Logger;
}

/**
 * Brings the files in line with the layout after a crash or an upgrade: a finished task still in
 * the live folder moves to done/, a task left in both folders keeps its newer copy, and every task
 * in progress has its owner index entry. Reads only the live folder; each fix is made under the
 * task's lock. The done index is compacted when it has grown (store/files/done-index.ts; only then are
 * done/'s names listed). The daemon runs it at start, before any teammate.
 */
export async function reconcileBoard({ paths, store, owners, locker, logger }: ReconcileDeps): Promise<{ moved: number; indexed: number }> {
  let moved = 0;
  let indexed = 0;
  /** Under the task's lock: moves a finished task to done/ (true), or drops the stale copy of one left in both folders. */
  const tidy = async (id: number): Promise<boolean> => {
    const handle = await locker.acquire(paths.taskFile(id));
    try {
      const now = store.read(id);
      if (now.kind !== 'ok') return false;
      if (!(isTerminal(now.task.status) && now.file === paths.taskFile(id))) {
        store.dropStaleCopy(id, now.file);
        return false;
      }
      store.write(now.task, () => {
        if (store.readRaw(id) !== now.raw)
          throw new TeamdError('CONCURRENT_WRITE', `task ${id} changed while it was being moved to done/; it is moved at the next start`, { details: { id } });
      });
      return true;
    } finally {
      await handle.release();
    }
  };
  for (const id of store.listIds()) {
    try {
      const read = store.read(id);
      if (read.kind !== 'ok') continue;
      const { task, file } = read;
      if (isTerminal(task.status) || file !== paths.taskFile(id)) {
        if (await tidy(id)) moved++;
      } else if (task.status === 'in_progress' && task.owner !== null && !owners.idsOf(task.owner).includes(id)) {
        owners.add(task.owner, id);
        indexed++;
      }
    } catch (error) {
      // One task that cannot be tidied (a lock held, a full disk) never stops the daemon from starting.
      logger.warn({ err: error, taskId: id }, 'could not reconcile a task file; left as it is');
    }
  }
  if (moved + indexed > 0) logger.info({ moved, indexed }, 'board reconciled: finished tasks moved to done/, owner index completed');
  const dropped = store.doneIndex.compact(() => new Map(store.listDoneIds().map((id) => [id, paths.doneTaskFile(id)])));
  if (dropped > 0) logger.info({ dropped }, 'done index compacted');
  const added = indexFinished(store, paths);
  if (added > 0) logger.info({ added }, 'done index completed: finished tasks it had no line for');
  return { moved, indexed };
}

/**
 * Gives the done index a line for each finished task it has none for (written before the index
 * existed, or the index was lost): each is read once now, and `teamd status` counts it with a
 * stat from then on instead of a read at every status. No lock: a line is appended only for a
 * file whose identity was the same before and after the read, so it describes what was read; a
 * writer that replaces the file meanwhile gives it a new identity, and the line no longer fits.
 */
function indexFinished(store: TaskStore, paths: StatePaths): number {
  const known = store.doneIndex.read();
  let added = 0;
  for (const id of store.listDoneIds()) {
    if (known.has(id)) continue;
    const file = paths.doneTaskFile(id);
    const before = statIfAny(file);
    const read = store.read(id);
    const after = statIfAny(file);
    if (read.kind !== 'ok' || read.file !== file || !isTerminal(read.task.status) || !before || !after) continue;
    if (!sameVersion(before, after)) continue;
    store.doneIndex.recordVersion(id, read.task.status, after);
    added++;
  }
  return added;
}
