import { Compactor } from '../agent/compactor.js';
import { appendUser, endsWithUnansweredMessages, estimateTokens, foldSuperseded } from '../agent/conversation.js';
import { currentTaskDirective, releasedDirective, remindDirective, resumeDirective, taskDirective, worktreeDirective } from '../contracts/directives.js';
import { runAgent, type AgentEvent } from '../agent/loop.js';
import { identityDirective } from '../agent/system-prompt.js';
import type { Task } from '../contracts/task.js';
import type { Message } from '../contracts/message.js';
import { describeModelError } from '../model/model-errors.js';
import { decideAfterUnit, MAX_REMINDERS, type AfterUnit, type UnitEnd } from './after-unit.js';
import { ALL_TOOLS, ToolRegistry } from '../tools/registry.js';
import type { ToolContext, ToolEffect } from '../contracts/tool.js';
import { waitForWork } from './idle-wait.js';
import { nextBackoff, type ModelBackoff } from './model-backoff.js';
import { TaskOutcomes } from './task-outcomes.js';
import { LeadGoal } from './lead-goal.js';
import { BudgetGuard, budgetReason, type BudgetVerdict } from './token-budget.js';
import { InboxIntake } from './inbox-intake.js';
import { PlanGate } from './plan-gate.js';
import { logAgentEvent } from './event-log.js';
import { StatusReport } from './status-report.js';
import { WakeTracker } from './wake-tracker.js';
import { NextTask } from './next-task.js';
import { RuntimeHooks } from './runtime-hooks.js';
import { TaskInHand } from './task-in-hand.js';
import { statePaths } from '../paths.js';
import { LEAD, USER } from '../contracts/roster.js';
import { JobIntake } from './job-intake.js';
import { assembleSystemPrompt } from './prompt-assembler.js';
import { SubagentRunner } from './subagent.js';
import type { Usage } from '../contracts/model.js';
import { TodoKeeper } from './todo-keeper.js';

import type { TeammateDeps } from './teammate-deps.js';

export type { TeammateDeps, TeammateMcp } from './teammate-deps.js';

export type RuntimeEnd = 'shutdown' | 'asleep' | 'stopped' | 'errored' | 'budget';

/**
 * A teammate's life (DESIGN §3): work on what arrives, then, when idle, in this order —
 * new inbox messages; a task it still owns; a ready task to claim; otherwise sleep on the
 * doorbell (never calling the model while idle) until the idle timeout. A model outage makes
 * it give its task back and wait (backing off); a refused key or model makes it stop taking work.
 */
export class TeammateRuntime {
  private readonly stopper = new AbortController();
  private readonly tools: ToolRegistry;
  private readonly compactor: Compactor;
  /** The last system prompt assembled (prompt-assembler.ts): what the budget and compaction estimate with. */
  private system: string;
  private readonly outcomes: TaskOutcomes;
  private readonly budget: BudgetGuard;
  private shutdownRequest: Message | null = null;
  private backoff: ModelBackoff | null = null;
  /** Messages are in the conversation that the model has not answered yet (a call failed). */
  private answerPending = false;
  private unusable: string | null = null;
  /** The lead agent's view of the goal being run; null for a teammate. */
  private readonly goal: LeadGoal | null;
  /** The lead reported to the person (not final) in the current stretch of work. */
  private reportedToPerson = false;
  private readonly status: StatusReport;
  /** Inside a unit of work (the model or a tool is running). */
  private busy = false;
  /** The conversation was changed before its last messages (compaction, folding): the next save rewrites the session file. */
  private rewriteSession = false;
  private readonly wakes: WakeTracker;
  private readonly next: NextTask;

  private readonly plans: PlanGate;
  private readonly intake: InboxIntake;
  private readonly jobIntake: JobIntake;
  private readonly subagents: SubagentRunner;
  private readonly todos: TodoKeeper;
  private readonly hooks: RuntimeHooks;
  private readonly hand: TaskInHand;

  constructor(private readonly deps: TeammateDeps) {
    this.status = new StatusReport(deps.link);
    this.wakes = new WakeTracker(deps.logger);
    this.next = new NextTask({
      name: deps.identity.name,
      board: deps.board,
      wakes: this.wakes,
      logger: deps.logger,
      daemonCoversBoard: deps.daemonCoversBoard,
    });
    this.budget = new BudgetGuard({ session: deps.session, view: deps.budget, nextCall: (messages) => estimateTokens(messages, this.system) + deps.maxTokens });
    this.plans = new PlanGate({ name: deps.identity.name, required: deps.identity.planRequired, session: deps.session, mailbox: deps.mailbox });
    this.intake = new InboxIntake({
      name: deps.identity.name,
      session: deps.session,
      consumer: deps.consumer,
      plans: this.plans,
      verifyGrant: deps.verifyGrant,
      // Durable: the inbox cursor moves past these messages next.
      save: () => this.save(true),
      logger: deps.logger,
    });
    this.todos = new TodoKeeper(deps.session, deps.todos);
    // Durable: the job records say `notified` next.
    this.jobIntake = new JobIntake({ jobs: deps.jobs, session: deps.session, save: () => this.save(true) });
    this.hand = new TaskInHand({
      name: deps.identity.name,
      workspace: deps.identity.workspace,
      paths: statePaths(deps.stateDir),
      board: deps.board,
      logger: deps.logger,
    });
    const policy =
      deps.makeGate?.({ taskId: () => this.currentTask?.id ?? null, root: () => this.hand.root, waiting: (on) => this.status.waiting(on) }) ?? null;
    this.hooks = new RuntimeHooks(policy?.events ?? null, deps.session, deps.logger);
    this.tools = new ToolRegistry(deps.tools ?? ALL_TOOLS, () => this.plans.approved(this.currentTask), policy?.gate ?? null, deps.mcp ?? null);
    this.subagents = new SubagentRunner({
      name: deps.identity.name,
      model: deps.model,
      maxTokens: deps.maxTokens,
      compactThresholdTokens: deps.compactThresholdTokens,
      gate: policy?.gate ?? null,
      planApproved: () => this.plans.approved(this.currentTask),
      onUsage: (usage) => this.countUsage(usage),
      overBudget: () => this.budget.check(this.deps.session.messages).over,
      shouldStop: () => this.stopper.signal.aborted,
    });
    this.system = assembleSystemPrompt(deps.identity, deps.knowledge);
    this.outcomes = new TaskOutcomes({
      name: deps.identity.name,
      // The lead agent's own notices (refused, stopped) are for the person, not for itself.
      tellTo: deps.lead ? USER : LEAD,
      board: deps.board,
      mailbox: deps.mailbox,
      logger: deps.logger,
      claims: this.hand.claims,
    });
    const lead = deps.lead;
    this.goal = lead
      ? new LeadGoal({ paths: statePaths(deps.stateDir), board: deps.board, mailbox: deps.mailbox, members: () => lead.members(), logger: deps.logger })
      : null;
    this.compactor = new Compactor({
      model: deps.model,
      thresholdTokens: deps.compactThresholdTokens,
      context: () => [identityDirective(deps.identity, this.currentTask), ...(this.currentTask ? [currentTaskDirective(this.currentTask)] : [])],
    });
  }

  stop(): void {
    this.stopper.abort();
  }

  /** The daemon rang: ready work appeared, `task` first. */
  wake(task: number | null): void {
    this.wakes.hint(task);
    this.deps.bell.ring('change', false);
  }

  async run(): Promise<RuntimeEnd> {
    const { link } = this.deps;
    link.send({ type: 'ready' });
    this.report('idle');
    await this.hooks.sessionStart();
    let idleSince = Date.now();
    let recheck = false;
    // Spent before this start (a restart, a wake): it stops again, without telling the lead twice.
    await this.budgetReached(this.budget.check(this.deps.session.messages), null);
    // Messages taken in before a stop and never answered: the inbox will not bring them again.
    this.answerPending = endsWithUnansweredMessages(this.deps.session.messages);
    while (!this.stopper.signal.aborted) {
      if (this.budget.stopped) {
        link.send({ type: 'budget', reason: budgetReason(this.budget.stopped) });
        return 'budget';
      }
      if (this.unusable !== null) {
        link.send({ type: 'errored', reason: this.unusable });
        return 'errored';
      }
      const injected = await this.readInbox();
      if (this.shutdownRequest) {
        await this.answerShutdown(this.shutdownRequest);
        return 'shutdown';
      }
      if (injected) {
        this.answerPending = true;
        await this.hooks.promptSubmitted();
      }
      if (this.backoff && Date.now() < this.backoff.until) {
        this.report('idle');
        await waitForWork(this.deps.bell, this.stopper.signal, Date.now(), Math.max(1, this.backoff.until - Date.now()));
        continue;
      }
      if (this.answerPending) {
        this.answerPending = false;
        await this.work();
        idleSince = Date.now();
        continue;
      }
      // A task it holds while the lead considers its plan: no second one meanwhile.
      if (!this.deps.lead && !(await this.holdsTask()) && (await this.takeNextTask(recheck))) {
        await this.work();
        idleSince = Date.now();
        continue;
      }
      this.report('idle');
      this.wakes.idle();
      this.deps.heap?.idle();
      await this.hooks.idle();
      // A background job still running keeps the teammate up: sleeping would end it.
      const timeoutMs = this.deps.jobs.running() > 0 ? 0 : this.deps.idleTimeoutMs;
      const woke = await waitForWork(this.deps.bell, this.stopper.signal, idleSince, timeoutMs);
      recheck = woke === 'recheck';
      if (woke === 'timeout') {
        this.deps.link.send({ type: 'asleep' });
        return 'asleep';
      }
      if (woke === 'work' && !this.stopper.signal.aborted) {
        this.wakes.woke();
      }
    }
    return 'stopped';
  }

  /** Takes the next task, if any (next-task.ts), and tells the model about it. */
  private async takeNextTask(recheck: boolean): Promise<boolean> {
    const { identity, session } = this.deps;
    const next = await this.next.find(this.hand.worked, session.gaveUp, recheck);
    if (!next) return false;
    const { task, resumed } = next;
    try {
      this.take(task);
    } catch (error) {
      // Its worktree cannot be made (git refused): working in the shared workspace instead would defeat it; the task fails, saying why.
      const reason = `its worktree could not be made: ${error instanceof Error ? error.message : String(error)}`;
      this.deps.logger.error({ err: error, taskId: task.id }, 'worktree could not be made; failing the task');
      await this.deps.board.fail(task.id, { owner: identity.name, claim: task.claim }, reason).catch(() => {});
      return false;
    }
    if (foldSuperseded(session.messages) > 0) this.rewriteSession = true;
    const directives = resumed ? [identityDirective(identity, task), resumeDirective(task)] : [taskDirective(task)];
    if (task.worktree && this.hand.root !== identity.workspace) directives.push(worktreeDirective(task, this.hand.root));
    appendUser(
      session.messages,
      directives.map((text) => ({ type: 'text' as const, text })),
    );
    await this.hooks.promptSubmitted();
    return true;
  }

  private take(task: Task): void {
    this.hand.take(task);
    // A new task starts without a plan; the previous task's is no longer shown.
    this.todos.newTask();
  }

  private get currentTask(): Task | null {
    return this.hand.current;
  }

  /** The current task ends (completed, failed, released): the roster, the identity and status agree at once. */
  private endTask(): void {
    this.hand.drop();
    this.report(this.busy ? 'working' : 'idle');
  }

  /**
   * Works on what is in the conversation; a model that ends its turn with its task open is
   * reminded, then gives it back. The lead agent is reminded of a stalled goal the same way (lead-goal.ts).
   */
  private async work(): Promise<void> {
    this.wakes.working();
    this.deps.heap?.working();
    this.reportedToPerson = false;
    for (let reminders = 0, goalReminders = 0; ; reminders++) {
      const end = await this.runUnit();
      // A Stop hook that exits 2 sends the model back to work with its feedback (a bounded number of times).
      if (end.kind === 'turn_end' && end.reason === 'end_turn' && (await this.hooks.stopContinues())) {
        reminders--;
        continue;
      }
      const task = this.currentTask;
      const owns = task !== null && (await this.outcomes.ownsOpen(task.id));
      const after = decideAfterUnit(end, { ownsTask: owns, awaitingPlan: owns && this.plans.awaitingAnswer(task), reminders });
      if (after.action === 'remind' && task) {
        appendUser(this.deps.session.messages, [{ type: 'text', text: remindDirective(task, reminders + 1, MAX_REMINDERS) }]);
        continue;
      }
      await this.carryOut(after, task);
      const nudge = await this.goal?.afterUnit(after, end, { reminders: goalReminders, reported: this.reportedToPerson }, this.deps.session.messages);
      if (!nudge) return;
      goalReminders++;
      appendUser(this.deps.session.messages, [{ type: 'text', text: nudge }]);
    }
  }

  private async carryOut(after: AfterUnit, task: Task | null): Promise<void> {
    switch (after.action) {
      case 'nothing':
      case 'remind':
        return;
      case 'give-back':
        if (!task) return;
        if (await this.outcomes.gaveUp(task, after.why)) this.deps.session.gaveUp.push(task.id);
        return this.closeTask(task, after.why);
      case 'refused':
        await this.outcomes.refused(task, after.text);
        if (!task) return;
        // Not offered to this teammate again, even if the lead puts it back on the board.
        this.deps.session.gaveUp.push(task.id);
        return this.closeTask(task, 'it failed because you refused it');
      case 'budget-spent':
        await this.budgetReached(this.budget.check(this.deps.session.messages), task);
        return;
      case 'outage':
        this.backoff = nextBackoff(this.backoff, after.reason, Date.now(), this.deps.backoff, after.retryAfterMs);
        await this.outcomes.outage(task, after.reason);
        if (task) this.closeTask(task, `the model API was unavailable (${after.reason})`);
        else this.answerPending = true;
        return;
      case 'unusable':
        this.unusable = after.reason;
        await this.outcomes.unusable(task, after.reason);
        if (task) this.closeTask(task, after.reason);
        return;
      case 'fail':
        await this.outcomes.modelFailed(after.error, task);
        if (task) this.closeTask(task, `it failed: ${describeModelError(after.error)}`);
        if (after.freshConversation) {
          // Keeping what the API refused would fail every later call the same way.
          this.deps.logger.warn('the model API refused this conversation; rebuilt it from the identity and the latest summary');
          this.compactor.rebuild(this.deps.session.messages);
          this.rewriteSession = true;
          this.save();
        }
        return;
    }
  }

  private async runUnit(): Promise<UnitEnd> {
    this.busy = true;
    this.report('working');
    let end: UnitEnd = { kind: 'turn_end', reason: 'end_turn' };
    const events = runAgent(this.deps.session.messages, {
      model: this.deps.model,
      tools: this.tools,
      ctx: this.toolContext(),
      compactor: this.compactor,
      system: () => (this.system = assembleSystemPrompt(this.deps.identity, this.deps.knowledge)),
      maxTokens: this.deps.maxTokens,
      ...(this.deps.maxTokensCap ? { maxTokensCap: this.deps.maxTokensCap } : {}),
      shouldStop: () => this.stopper.signal.aborted || this.shutdownRequest !== null,
      absorbInput: async () => {
        await this.readInbox();
        this.todos.remind(this.currentTask !== null);
      },
      overBudget: (messages) => this.budget.check(messages).over,
    });
    for await (const event of events) {
      if (event.type === 'turn_end') end = { kind: 'turn_end', reason: event.reason, text: event.text };
      if (event.type === 'error') end = { kind: 'error', error: event.error };
      await this.onEvent(event);
    }
    this.busy = false;
    this.save();
    return end;
  }

  /** Tells the model the task is no longer its own, and ends it. */
  private closeTask(task: Task, why: string): void {
    appendUser(this.deps.session.messages, [{ type: 'text', text: releasedDirective(task, why) }]);
    this.save();
    this.endTask();
  }

  private async onEvent(event: AgentEvent): Promise<void> {
    const { logger } = this.deps;
    logAgentEvent(logger, event, this.currentTask?.id ?? null);
    if (event.type === 'usage') {
      this.backoff = null;
      this.todos.called(this.currentTask !== null);
      this.countUsage(event.usage);
    }
    // Compaction changed the whole conversation: the next save replaces the file instead of appending.
    if (event.type === 'compacted') this.rewriteSession = true;
    if (event.type === 'step') this.save();
    if (event.type === 'tool_result' && event.effect) await this.applyEffect(event.effect);
  }

  /** A call's tokens, the teammate's own or a helper's: in its usage, its budget and the roster. */
  private countUsage(usage: Usage): void {
    const { session, link } = this.deps;
    for (const key of Object.keys(session.usage) as (keyof typeof session.usage)[]) session.usage[key] += usage[key];
    link.send({ type: 'usage', usage: session.usage });
  }

  private async applyEffect(effect: ToolEffect): Promise<void> {
    this.hooks.taskEvent(effect);
    switch (effect.kind) {
      case 'task-claimed':
        try {
          this.take(await this.deps.board.get(effect.id));
        } catch (error) {
          // Claimed by a tool: the model sees the failure at its next call; the task stays claimed for the lead to see.
          this.deps.logger.error({ err: error, taskId: effect.id }, 'worktree could not be made for a task claimed by a tool');
        }
        this.report('working');
        return;
      case 'task-completed':
      case 'task-failed':
        await this.outcomes.finished(effect.id);
        if (this.currentTask?.id === effect.id) this.endTask();
        return;
      case 'idle':
        return;
      case 'reported':
        // A question or progress for the person: the lead waits for their answer, it is not stalled.
        if (!effect.final) this.reportedToPerson = true;
        return;
      case 'todos':
        this.todos.written(effect.items);
        return;
    }
  }

  private async holdsTask(): Promise<boolean> {
    if (this.currentTask && !(await this.outcomes.ownsOpen(this.currentTask.id))) this.endTask();
    return this.currentTask !== null;
  }

  /** New inbox messages into the conversation; a signed shutdown request is kept for the loop. True when something was added. */
  private async readInbox(): Promise<boolean> {
    if (this.shutdownRequest) return false;
    const { shutdown, injected } = await this.intake.take();
    this.shutdownRequest = shutdown;
    const told = this.jobIntake.take();
    return injected || told;
  }

  /** Stops taking work for good: the task goes back, the lead is told once per budget, and the loop ends. */
  private async budgetReached(verdict: BudgetVerdict, task: Task | null): Promise<void> {
    if (!verdict.over) return;
    const { reason, tell } = this.budget.stop(verdict);
    await this.outcomes.budgetReached(task, reason, tell, this.deps.identity.name);
    if (task) this.closeTask(task, 'the token budget is spent');
    this.save();
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

  private toolContext(): ToolContext {
    const { identity, board, mailbox } = this.deps;
    return {
      name: identity.name,
      workspace: this.hand.root,
      stateDir: this.deps.stateDir,
      shell: this.deps.shell,
      board,
      mailbox,
      signal: this.stopper.signal,
      jobs: this.deps.jobs,
      subagent: this.subagents,
      ...(this.deps.schedule ? { schedule: this.deps.schedule } : {}),
      ...(this.deps.mcp ? { mcp: this.deps.mcp } : {}),
      ...(this.deps.lead ? { lead: this.deps.lead } : {}),
      ...(this.deps.knowledge ? { skills: this.deps.knowledge.skills, memory: this.deps.knowledge.memory } : {}),
      claims: this.hand.claims,
      control: {
        beforeComplete: (id) => this.hand.beforeComplete(id),
        submitPlan: async (plan) => {
          const requestId = await this.plans.submit(plan, this.currentTask);
          this.save();
          return requestId;
        },
      },
    };
  }

  /** `durable` for a save another durable write depends on (a rewrite always is). */
  private save(durable = false): void {
    if (this.rewriteSession) this.deps.sessions.rewrite(this.deps.session);
    else this.deps.sessions.save(this.deps.session, { durable });
    this.rewriteSession = false;
  }

  /** Idle with a task whose plan is with the lead is waiting-plan, so status and watch show why it does nothing. */
  private report(status: 'idle' | 'working'): void {
    const task = this.currentTask;
    const shown = status === 'idle' && task !== null && this.plans.awaitingAnswer(task) ? 'waiting-plan' : status;
    this.status.send(shown, task?.id ?? null, this.backoff, this.wakes.wakes);
  }
}
