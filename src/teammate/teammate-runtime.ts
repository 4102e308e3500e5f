import { appendUser, endsWithUnansweredMessages, workedOn } from '../agent/conversation.js';
import { reclaimDirective, resumeDirective, taskDirective, worktreeDirective } from '../contracts/directives.js';
import { identityDirective } from '../agent/system-prompt.js';
import type { Message } from '../contracts/message.js';
import { waitForWork } from './idle-wait.js';
import { budgetReason } from './token-budget.js';
import { buildRuntimeParts, initialState, type RuntimeParts, type RuntimeState } from './runtime-parts.js';
import { UnitWork } from './unit-work.js';
import type { TeammateDeps } from './teammate-deps.js';

export type { TeammateDeps, TeammateMcp } from './teammate-deps.js';

export type RuntimeEnd = 'shutdown' | 'asleep' | 'stopped' | 'errored' | 'budget';

/**
 * A teammate's life (DESIGN §3): work on what arrives, then, when idle, in this order —
 * new inbox messages; a task it still owns; a ready task to claim; otherwise sleep on the
 * doorbell (never calling the model while idle) until the idle timeout. A model outage makes
 * it give its task back and wait (backing off); a refused key or model makes it stop taking work.
 * The work on each arrival is unit-work.ts; the parts are wired in runtime-parts.ts.
 */
export class TeammateRuntime {
  private readonly stopper = new AbortController();
  private readonly state: RuntimeState;
  private readonly parts: RuntimeParts;
  private readonly unit: UnitWork;

  constructor(private readonly deps: TeammateDeps) {
    this.state = initialState(deps);
    this.parts = buildRuntimeParts(deps, this.state, {
      save: (durable) => this.unit.save(durable),
      countUsage: (usage) => this.unit.countUsage(usage),
      stop: this.stopper.signal,
    });
    this.unit = new UnitWork(deps, this.parts, this.state, this.stopper.signal);
  }

  stop(): void {
    this.stopper.abort();
  }

  /** The daemon rang: ready work appeared, `task` first. */
  wake(task: number | null): void {
    this.parts.wakes.hint(task);
    this.deps.bell.ring('change', false);
  }

  /** Its host had been counted lost: work on a task that is no longer its own stops now (unit-work.ts). */
  async recheckClaim(): Promise<void> {
    try {
      await this.unit.recheckClaim();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not look whether its task is still its own; its next write to the board will tell');
    }
  }

  /** Works until it stops, sleeps or cannot go on; SessionEnd hooks hear why. */
  async run(): Promise<RuntimeEnd> {
    const end = await this.work();
    await this.parts.hooks.sessionEnd(end);
    return end;
  }

  private async work(): Promise<RuntimeEnd> {
    const { link } = this.deps;
    link.send({ type: 'ready' });
    this.unit.report('idle');
    await this.parts.hooks.sessionStart();
    let idleSince = Date.now();
    let recheck = false;
    // Spent before this start (a restart, a wake): it stops again, without telling the lead twice.
    await this.unit.budgetReached(this.parts.budget.check(this.deps.session.messages), null);
    // Messages taken in before a stop and never answered: the inbox will not bring them again.
    // Unless the model could not answer them last time (one notice went out): then only something new asks it again.
    const { messages, unansweredAt } = this.deps.session;
    this.state.answerPending = endsWithUnansweredMessages(messages) && unansweredAt !== messages.length;
    while (!this.stopper.signal.aborted) {
      if (this.parts.budget.stopped) {
        link.send({ type: 'budget', reason: budgetReason(this.parts.budget.stopped) });
        return 'budget';
      }
      if (this.state.unusable !== null) {
        link.send({ type: 'errored', reason: this.state.unusable });
        return 'errored';
      }
      const injected = await this.unit.readInbox();
      if (this.state.shutdownRequest) {
        await this.answerShutdown(this.state.shutdownRequest);
        return 'shutdown';
      }
      if (injected) {
        this.state.answerPending = true;
        await this.parts.hooks.promptSubmitted();
      }
      if (this.state.backoff && Date.now() < this.state.backoff.until) {
        this.unit.report('idle');
        await waitForWork(this.deps.bell, this.stopper.signal, Date.now(), Math.max(1, this.state.backoff.until - Date.now()));
        continue;
      }
      if (this.state.answerPending) {
        this.state.answerPending = false;
        await this.unit.work();
        idleSince = Date.now();
        continue;
      }
      // A task it holds while the lead considers its plan: no second one meanwhile.
      if (!this.deps.lead && !(await this.holdsTask()) && (await this.takeNextTask(recheck))) {
        await this.unit.work();
        idleSince = Date.now();
        continue;
      }
      this.unit.report('idle');
      this.parts.wakes.idle();
      this.deps.heap?.idle();
      await this.parts.hooks.idle();
      // A background job still running keeps the teammate up: sleeping would end it.
      const timeoutMs = this.deps.jobs.running() > 0 ? 0 : this.deps.idleTimeoutMs;
      const woke = await waitForWork(this.deps.bell, this.stopper.signal, idleSince, timeoutMs);
      recheck = woke === 'recheck';
      if (woke === 'timeout') {
        this.deps.link.send({ type: 'asleep' });
        return 'asleep';
      }
      if (woke === 'work' && !this.stopper.signal.aborted) {
        this.parts.wakes.woke();
      }
    }
    return 'stopped';
  }

  /** Takes the next task, if any (next-task.ts), and tells the model about it. */
  private async takeNextTask(recheck: boolean): Promise<boolean> {
    const { identity, session } = this.deps;
    const next = await this.parts.next.find(this.parts.hand.worked, session.gaveUp, recheck);
    if (!next) return false;
    const { task, resumed } = next;
    try {
      this.unit.take(task);
    } catch (error) {
      // Its worktree cannot be made (git refused): working in the shared workspace instead would defeat it; the task fails, saying why.
      const reason = `its worktree could not be made: ${error instanceof Error ? error.message : String(error)}`;
      this.deps.logger.error({ err: error, taskId: task.id }, 'worktree could not be made; failing the task');
      await this.deps.board.fail(task.id, { owner: identity.name, claim: task.claim }, reason).catch(() => {});
      return false;
    }
    // The conversation only grows at its end, so the next call reads all of it from the prompt cache.
    // Claimed again after it was handed back while this teammate could not work on it (a crash loop, an outage): resumed, not started over.
    const directives = resumed
      ? [identityDirective(identity, task), resumeDirective(task)]
      : workedOn(session.messages, task.id)
        ? [reclaimDirective(task, identity.planRequired)]
        : [taskDirective(task, session.messages.length > 0)];
    if (task.worktree && this.parts.hand.root !== identity.workspace) directives.push(worktreeDirective(task, this.parts.hand.root));
    appendUser(
      session.messages,
      directives.map((text) => ({ type: 'text' as const, text })),
    );
    await this.parts.hooks.promptSubmitted();
    return true;
  }

  private async holdsTask(): Promise<boolean> {
    if (this.unit.currentTask && !(await this.parts.outcomes.ownsOpen(this.unit.currentTask.id))) this.unit.endTask();
    return this.unit.currentTask !== null;
  }

  private async answerShutdown(request: Message): Promise<void> {
    this.deps.link.send({ type: 'shutting-down' });
    await this.deps.mailbox.send({
      from: this.deps.identity.name,
      to: request.from,
      type: 'shutdown_response',
      requestId: request.requestId,
      approve: true,
      content: `${this.deps.identity.name} is shutting down.`,
    });
    this.deps.logger.info({ requestId: request.requestId }, 'shutdown approved');
  }
}
