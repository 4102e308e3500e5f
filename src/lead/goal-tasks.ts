import type { TaskView } from '../contracts/board-types.js';
import { LEAD } from '../contracts/roster.js';
import type { RunRecord } from './run-record.js';

/** The tasks the lead created for a goal: created by the lead since the goal was given. */
export function goalTasks(tasks: readonly TaskView[], record: Pick<RunRecord, 'startedAt'>): TaskView[] {
  return tasks.filter((task) => task.createdBy === LEAD && task.createdAt >= record.startedAt);
}

/** A task the goal no longer waits for: completed, failed, cancelled, or stuck behind one that will not complete. */
export function settled(task: TaskView): boolean {
  return task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled' || task.stuck;
}
