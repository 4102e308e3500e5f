import { statIfAny } from '../../fs/stat-if-any.js';
import type { StatePaths } from '../../paths.js';
import { sameVersion } from './done-index.js';
import type { Task } from '../../contracts/task.js';
import { heldIn, noTasks } from '../../domain/board-counts.js';
import type { TaskRead, TaskStore } from './task-store.js';
import type { CorruptTask, BoardCounts } from '../../contracts/board-types.js';

/**
 * The file store's counts. Live tasks (the folder claimers scan: few) are read as a listing reads
 * them. A finished task whose file is still the version the done index recorded
 * (store/files/done-index.ts) is counted from the index, with a stat and no read; any other is read.
 * Failed tasks are read only for the ones shown. The same counts as a listing of the same files.
 */
export function countFileBoard(store: TaskStore, paths: StatePaths, failedShown: number): BoardCounts {
  const counts = noTasks();
  const problems: CorruptTask[] = [];
  // Failed tasks by id: the task when it was read, null when counted from the index.
  const failed = new Map<number, Task | null>();
  const working: Task[] = [];
  const take = (id: number, read: TaskRead): void => {
    if (read.kind === 'ok') {
      counts[read.task.status]++;
      if (read.task.status === 'in_progress') working.push(read.task);
      if (read.task.status === 'failed') failed.set(id, read.task);
    } else if (read.kind === 'corrupt') problems.push({ id, file: read.file, reason: read.reason });
  };
  const live = store.listIds();
  // A task in both folders (a writer killed mid-move) is read once, as a listing reads it: the newer copy.
  for (const id of live) take(id, store.read(id));
  const seen = new Set(live);
  const index = store.doneIndex.read();
  for (const id of store.listDoneIds()) {
    if (seen.has(id)) continue;
    const entry = index.get(id);
    const stat = entry === undefined ? undefined : statIfAny(paths.doneTaskFile(id));
    if (entry !== undefined && stat && sameVersion(entry, stat)) {
      counts[entry.status]++;
      if (entry.status === 'failed') failed.set(id, null);
    } else take(id, store.read(id));
  }
  const shown: Task[] = [];
  for (const id of [...failed.keys()].sort((a, b) => a - b)) {
    if (shown.length >= failedShown) break;
    const known = failed.get(id);
    if (known) shown.push(known);
    else {
      const read = store.read(id);
      if (read.kind === 'ok' && read.task.status === 'failed') shown.push(read.task);
    }
  }
  return { counts, failed: shown, problems: problems.sort((a, b) => a.id - b.id), held: heldIn(working) };
}
