import type { Task } from '../contracts/task.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Message } from '../contracts/message.js';
import { planDirective } from '../contracts/directives.js';
import { LEAD } from '../contracts/roster.js';
import type { Session } from './session-store.js';

/**
 * A `--plan` teammate's plans, and those the lead asked for (request_plan, for one task): each
 * request names the claim of the task it is for, and an approval opens the tools that change
 * things for that one claim only — a later task, or the same task claimed again, needs its own
 * approved plan.
 */
export class PlanGate {
  constructor(
    private readonly deps: {
      readonly name: string;
      readonly required: boolean;
      readonly session: Session;
      readonly mailbox: MailStore;
      /** The task (and claim) it works on now: an answer to a plan for another claim opens nothing. */
      readonly current: () => Pick<Task, 'id' | 'claim'> | null;
    },
  ) {}

  /** Whether this task needs an approved plan: every task of a --plan teammate, or one the lead asked a plan for. */
  required(task: Pick<Task, 'id'> | null): boolean {
    return this.deps.required || (task !== null && this.deps.session.planFor.includes(task.id));
  }

  /** The lead asked for a plan for this task before it is changed (request_plan). */
  requireFor(taskId: number): void {
    if (!this.deps.session.planFor.includes(taskId)) this.deps.session.planFor.push(taskId);
  }

  /** Whether tools that need an approved plan may run now. */
  approved(task: Task | null): boolean {
    if (!this.required(task)) return true;
    const plan = this.deps.session.approvedPlan;
    return task !== null && plan?.task === task.id && plan.claim === task.claim;
  }

  /** A plan for this claim of the task is with the lead: ending the turn is waiting, not leaving. */
  awaitingAnswer(task: Task): boolean {
    return this.deps.session.planRequests.some((r) => !r.answered && r.task === task.id && r.claim === task.claim);
  }

  /** Sends the plan to the lead; returns the request id. */
  async submit(plan: string, task: Task | null): Promise<string> {
    const request = await this.deps.mailbox.send({
      from: this.deps.name,
      to: LEAD,
      type: 'plan_approval_request',
      content: plan,
      ...(task ? { extra: { taskId: task.id, claim: task.claim } } : {}),
    });
    this.deps.session.planRequests.push({ requestId: request.requestId!, task: task?.id ?? null, claim: task?.claim ?? null, answered: false });
    return request.requestId!;
  }

  /**
   * Takes the lead's (already verified) answer to one of our requests: the text for the model, or
   * null if it answers none open — unknown, or for another claim than the one in hand (the task was
   * released and claimed again meanwhile: that plan was for work no longer being done).
   */
  answer(message: Message): string | null {
    const { session } = this.deps;
    const request = session.planRequests.find((r) => r.requestId === message.requestId);
    if (message.from !== LEAD || !request) return null;
    request.answered = true;
    const current = this.deps.current();
    // With no task in hand yet (just restarted), the approval is kept: approved() checks the claim when a tool runs.
    if (current && request.task !== null && (current.id !== request.task || current.claim !== request.claim)) return null;
    const approved = message.approve === true && request.task !== null && request.claim !== null;
    session.approvedPlan = approved ? { task: request.task!, claim: request.claim! } : null;
    return planDirective(message.approve === true, message.content);
  }
}
