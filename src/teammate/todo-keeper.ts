import { appendUser } from '../agent/conversation.js';
import { hasOpenTodos, TODO_NAG_AFTER_CALLS, todoReminder } from '../agent/todos.js';
import { type TodoItem } from '../contracts/todos.js';
import type { Session } from './session-store.js';

/**
 * The teammate's plan for its current task (todo_write): kept in the session, published for
 * teamd status, cleared when a new task starts, and s03's nag — a plan with open steps not
 * updated for a few model calls on a task gets a reminder in the next turn.
 */
export class TodoKeeper {
  constructor(
    private readonly session: Session,
    private readonly publish: (items: readonly TodoItem[]) => void = () => {},
  ) {}

  /** todo_write replaced the plan. */
  written(items: readonly TodoItem[]): void {
    this.session.todos = [...items];
    this.session.callsSinceTodo = 0;
    this.publish(this.session.todos);
  }

  /** A new task: it starts without a plan. */
  newTask(): void {
    if (this.session.todos.length > 0) {
      this.session.todos = [];
      this.publish([]);
    }
    this.session.callsSinceTodo = 0;
  }

  /** A model call was made; `onTask`: while the teammate holds a task. */
  called(onTask: boolean): void {
    if (onTask) this.session.callsSinceTodo++;
  }

  /** Before a model call: the reminder, when it is due. */
  remind(onTask: boolean): void {
    const { session } = this;
    if (!onTask || !hasOpenTodos(session.todos) || session.callsSinceTodo < TODO_NAG_AFTER_CALLS) return;
    appendUser(session.messages, [{ type: 'text', text: todoReminder(session.todos, session.callsSinceTodo) }]);
    session.callsSinceTodo = 0;
  }
}
