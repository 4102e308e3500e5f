import type { TodoItem } from '../contracts/todos.js';
/** Model calls on a task without a todo_write, while the list has unfinished items, before a reminder. */
export const TODO_NAG_AFTER_CALLS = 3;

export function hasOpenTodos(items: readonly TodoItem[]): boolean {
  return items.some((item) => item.status !== 'completed');
}

/** The plan as it stands, for the start of a shortened conversation (compactor's context): every step with its status. */
export function todoListing(items: readonly TodoItem[]): string {
  return `Your plan for it (todo_write), as it stands:\n${items.map((item) => `- [${item.status}] ${item.content}`).join('\n')}`;
}

export function todoReminder(items: readonly TodoItem[], calls: number): string {
  const open = items.filter((item) => item.status !== 'completed').map((item) => `- [${item.status}] ${item.content}`);
  return `[teamd:todo-reminder]\nYou have not updated your plan in ${calls} model calls. Update it with todo_write (mark what is done, set the step you are on in_progress), then go on. Still open:\n${open.join('\n')}`;
}
