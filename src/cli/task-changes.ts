import type { Task } from '../contracts/task.js';
import { firstLine } from '../text.js';

/** The board as last shown (teamd run, teamd lead): each call gives one line per task that appeared or changed status or owner since. */
export class TaskChanges {
  private readonly seen = new Map<number, string>();

  /** `known`: tasks already there, shown only when they change. */
  constructor(known: readonly Task[] = []) {
    for (const task of known) this.seen.set(task.id, shownAs(task));
  }

  lines(tasks: readonly Task[]): string[] {
    const lines: string[] = [];
    for (const task of tasks) {
      const shown = shownAs(task);
      if (this.seen.get(task.id) !== shown) lines.push(describeChange(task, this.seen.has(task.id)));
      this.seen.set(task.id, shown);
    }
    return lines;
  }
}

function shownAs(task: Task): string {
  return `${task.status}:${task.owner ?? ''}`;
}

function describeChange(task: Task, known: boolean): string {
  if (!known)
    return `task ${task.id} ${task.status === 'pending' ? 'created' : task.status}: ${task.subject}${task.blockedBy.length ? ` (after ${task.blockedBy.join(', ')})` : ''}`;
  switch (task.status) {
    case 'in_progress':
      return `task ${task.id} claimed by ${task.owner ?? '?'}`;
    case 'completed':
      return `task ${task.id} completed${task.owner ? ` by ${task.owner}` : ''}`;
    case 'failed':
      return `task ${task.id} failed: ${firstLine(task.result ?? 'no reason given', 120)}`;
    case 'cancelled':
      return `task ${task.id} cancelled`;
    case 'pending':
      return `task ${task.id} back on the board`;
  }
}
