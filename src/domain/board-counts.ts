import { TASK_STATUSES, type Task, type TaskStatus } from '../contracts/task.js';
import type { BoardCounts, CorruptTask } from '../contracts/board-types.js';

/** Every status at 0. */
export function noTasks(): Record<TaskStatus, number> {
  return Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<TaskStatus, number>;
}

/** The counts of a whole listing: for a store with nothing quicker to count from. */
export function countListing(tasks: readonly Task[], problems: readonly CorruptTask[], failedShown: number): BoardCounts {
  const counts = noTasks();
  for (const task of tasks) counts[task.status]++;
  const failed = tasks.filter((task) => task.status === 'failed').sort((a, b) => a.id - b.id);
  return { counts, failed: failed.slice(0, failedShown), problems: [...problems].sort((a, b) => a.id - b.id), held: heldIn(tasks) };
}

/** Tasks in progress and who holds each, lowest id first. */
export function heldIn(tasks: readonly Task[]): BoardCounts['held'] {
  return tasks
    .filter((task) => task.status === 'in_progress' && task.owner !== null)
    .map((task) => ({ id: task.id, owner: task.owner! }))
    .sort((a, b) => a.id - b.id);
}
