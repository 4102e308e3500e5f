import type { TaskBoard } from '../contracts/task-board.js';
import type { ModelBackoff } from './model-backoff.js';
import type { Task } from '../contracts/task.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Logger } from '../log/logger.js';
import { describeModelError } from '../model/model-client.js';

/** What a teammate does to the board and tells the lead (the lead agent: the person) when a unit of work ends a certain way. */
export class TaskOutcomes {
  constructor(
    private readonly deps: {
      readonly name: string;
      /** Who hears the notices: the lead (the lead agent's go to the person). */
      readonly tellTo: string;
      readonly board: TaskBoard;
      readonly mailbox: MailStore;
      readonly logger: Logger;
      /** The fencing token held for each task this teammate took. */
      readonly claims: ReadonlyMap<number, number>;
    },
  ) {}

  /** After complete_task / fail_task succeeded: a task_completed or task_failed notice. */
  async finished(taskId: number): Promise<void> {
    const task = await this.deps.board.get(taskId);
    if (task.status !== 'completed' && task.status !== 'failed') return;
    await this.tell(
      task.status === 'completed' ? 'task_completed' : 'task_failed',
      `task ${taskId} ${task.status}: ${task.subject}${task.result ? `\n${task.result.slice(0, 2000)}` : ''}`,
      taskId,
    );
  }

  /** A model error that retrying will not cure: the task fails with it and the lead is told. */
  async modelFailed(error: unknown, task: Task | null, note: string | null = null): Promise<void> {
    const reason = `model error: ${describeModelError(error)}${note ? `; ${note}` : ''}`;
    this.deps.logger.error({ err: error, taskId: task?.id }, 'model call failed');
    await this.failWithNotice(task, reason, `I could not answer: ${reason}`);
  }

  /** The model refused: the task fails with the refusal as its reason, and the lead gets one notice. */
  async refused(task: Task | null, text: string): Promise<void> {
    const reason = `the model refused${text ? `: ${text.slice(0, 1000)}` : ' (no reason given)'}`;
    this.deps.logger.warn({ taskId: task?.id, refusal: text.slice(0, 500) }, 'the model refused');
    await this.failWithNotice(task, reason, `I could not answer: ${reason}`);
  }

  /** The model kept ending its turn without finishing the task: it goes back to the board, and the lead hears why. */
  async gaveUp(task: Task, why: string): Promise<boolean> {
    const released = await this.release(task, why);
    if (released) await this.tell('message', `I gave task ${task.id} back to the board: ${why}. Someone else may take it; I will not.`, task.id);
    return released;
  }

  /** A model outage outlasted the retries: the task goes back to the board (not failed) while this teammate waits. */
  /** A model outage: the task goes back; `tell` (once per episode, after-unit.ts): the person hears of it, with the wait. */
  async outage(task: Task | null, reason: string, tell: ModelBackoff | null): Promise<void> {
    this.deps.logger.warn({ taskId: task?.id, reason }, 'model unavailable; backing off');
    const released = task ? await this.release(task, reason) : false;
    if (!tell) return;
    const inSeconds = Math.max(1, Math.round((tell.until - Date.now()) / 1000));
    await this.tell(
      'message',
      `The model API failed ${tell.failures} times in a row (last: ${reason}).${released ? ` Task ${task!.id} is back on the board.` : ''} I try again in ${inSeconds} s, waiting longer each time, and go on by myself when it answers; I will not tell you again for this outage. teamd status shows the next try.`,
      ...(released ? [task!.id] : []),
    );
  }

  /** The key or the model is refused: the task goes back, the lead is told once, and this teammate takes no more work. */
  async unusable(task: Task | null, reason: string): Promise<void> {
    this.deps.logger.error({ taskId: task?.id, reason }, 'the model cannot be used; no more work taken');
    const released = task ? await this.release(task, reason) : false;
    await this.tell(
      'message',
      `I stopped taking work: ${reason}.${released ? ` Task ${task!.id} is back on the board.` : ''} Fix it, then: teamd spawn ${this.deps.name} <role> [--model <id>]`,
      ...(released ? [task!.id] : []),
    );
  }

  /**
   * A budget is spent: the task goes back to the board, and the lead is told (once per budget:
   * `tell`) how to raise the one that stopped it: this teammate's (`name`), or the team's (null).
   */
  async budgetReached(task: Task | null, reason: string, tell: boolean, name: string | null): Promise<void> {
    const released = task ? await this.release(task, reason) : false;
    if (!tell) return;
    const raise = name === null ? 'teamd budget --team <tokens>' : `teamd budget ${name} <tokens>`;
    await this.tell(
      'message',
      `I stopped: ${reason}, and I take no more work.${released ? ` Task ${task!.id} is back on the board.` : ''} Raise it with: ${raise}`,
    );
  }

  /** Puts an open task this teammate owns back on the board, fenced by its claim; false when it no longer owns it. */
  async release(task: Task, why: string): Promise<boolean> {
    if (!(await this.ownsOpen(task.id))) return false;
    try {
      await this.deps.board.release(task.id, { owner: this.deps.name, claim: this.deps.claims.get(task.id) });
      this.deps.logger.info({ taskId: task.id, why }, 'task released back to the board');
      return true;
    } catch (error) {
      this.deps.logger.warn({ err: error, taskId: task.id }, 'could not release the task');
      return false;
    }
  }

  /** Its claim is still the board's: open, its own, and not claimed since (a reclaim by another host and back counts). */
  async holdsClaim(taskId: number): Promise<boolean> {
    // Not caught: a board that cannot be read says nothing about the claim.
    const task = await this.deps.board.get(taskId);
    const held = this.deps.claims.get(taskId);
    return task.status === 'in_progress' && task.owner === this.deps.name && (held === undefined || task.claim === held);
  }

  async ownsOpen(taskId: number): Promise<boolean> {
    try {
      const task = await this.deps.board.get(taskId);
      return task.status === 'in_progress' && task.owner === this.deps.name;
    } catch {
      return false;
    }
  }

  private async failWithNotice(task: Task | null, reason: string, otherwise: string): Promise<void> {
    if (task && (await this.ownsOpen(task.id))) {
      try {
        await this.deps.board.fail(task.id, { owner: this.deps.name, claim: this.deps.claims.get(task.id) }, reason);
        await this.tell('task_failed', `task ${task.id} failed: ${reason}`, task.id);
        return;
      } catch (error) {
        // Taken away meanwhile (cancelled, released by the lead): the lead still hears what happened.
        this.deps.logger.warn({ err: error, taskId: task.id }, 'could not mark the task failed');
      }
    }
    await this.tell('message', otherwise);
  }

  private async tell(type: 'message' | 'task_completed' | 'task_failed', content: string, taskId?: number): Promise<void> {
    await this.deps.mailbox.send({ from: this.deps.name, to: this.deps.tellTo, type, content, ...(taskId === undefined ? {} : { extra: { taskId } }) });
  }
}
