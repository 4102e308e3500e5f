import type { Board } from '../board/board.js';
import type { Task } from '../board/task.js';
import type { Mailbox } from '../inbox/mailbox.js';
import type { Logger } from '../logger.js';
import { describeModelError } from '../model/model-client.js';
import { LEAD } from '../roster/roster.js';

/** What a teammate does to the board and tells the lead when a unit of work ends a certain way. */
export class TaskOutcomes {
  constructor(
    private readonly deps: {
      readonly name: string;
      readonly board: Board;
      readonly mailbox: Mailbox;
      readonly logger: Logger;
      /** The fencing token held for each task this teammate took. */
      readonly claims: ReadonlyMap<number, number>;
    },
  ) {}

  /** After complete_task / fail_task succeeded: a task_completed or task_failed notice. */
  finished(taskId: number): void {
    const task = this.deps.board.get(taskId);
    if (task.status !== 'completed' && task.status !== 'failed') return;
    this.tell(
      task.status === 'completed' ? 'task_completed' : 'task_failed',
      `task ${taskId} ${task.status}: ${task.subject}${task.result ? `\n${task.result.slice(0, 2000)}` : ''}`,
      taskId,
    );
  }

  /** A model error the loop could not recover from: the task fails with it and the lead is told. */
  async modelFailed(error: unknown, task: Task | null): Promise<void> {
    const reason = `model error: ${describeModelError(error)}`;
    this.deps.logger.error({ err: error, taskId: task?.id }, 'model call failed');
    if (task && this.ownsOpen(task.id)) {
      await this.deps.board.fail(task.id, { owner: this.deps.name, claim: this.deps.claims.get(task.id) }, reason);
      this.tell('task_failed', `task ${task.id} failed: ${reason}`, task.id);
    } else {
      this.tell('message', `I could not answer: ${reason}`);
    }
  }

  /** The token budget would be exceeded: the task goes back to the board. */
  async budgetReached(task: Task | null, budget: number | undefined): Promise<void> {
    if (task && this.ownsOpen(task.id)) await this.deps.board.release(task.id, { owner: this.deps.name, claim: this.deps.claims.get(task.id) });
    this.tell(
      'message',
      `My token budget (${budget}) would be exceeded by the next model call, so I stopped.${task ? ` Task ${task.id} is back on the board.` : ''}`,
    );
  }

  stepLimit(task: Task | null): void {
    this.tell(
      'message',
      `I stopped after too many model calls in a row${task ? ` on task ${task.id}` : ''}; please check my log (teamd logs ${this.deps.name}).`,
    );
  }

  private ownsOpen(taskId: number): boolean {
    const task = this.deps.board.get(taskId);
    return task.status === 'in_progress' && task.owner === this.deps.name;
  }

  private tell(type: 'message' | 'task_completed' | 'task_failed', content: string, taskId?: number): void {
    this.deps.mailbox.send({ from: this.deps.name, to: LEAD, type, content, ...(taskId === undefined ? {} : { extra: { taskId } }) });
  }
}
