import { appendUser } from '../agent/conversation.js';
import { releasedDirective, remindDirective } from '../contracts/directives.js';
import { runAgent, type AgentEvent } from '../agent/loop.js';
import type { Task } from '../contracts/task.js';
import { describeModelError } from '../model/model-errors.js';
import { decideAfterUnit, tellsOfOutage, MAX_REMINDERS, type AfterUnit, type UnitEnd } from './after-unit.js';
import type { ToolEffect } from '../contracts/tool.js';
import { nextBackoff } from './model-backoff.js';
import { type BudgetVerdict } from './token-budget.js';
import { logAgentEvent } from './event-log.js';
import { assembleSystemPrompt } from './prompt-assembler.js';
import type { Usage } from '../contracts/model.js';
import type { TeammateDeps } from './teammate-deps.js';
import type { RuntimeParts, RuntimeState } from './runtime-parts.js';
import { teammateToolContext } from './runtime-tool-context.js';
import { RunningUnit, TAKEN_BACK } from './running-unit.js';

/**
 * A teammate's work on what is in its conversation: units of the agent loop, its events turned
 * into saves, usage and task changes, and what follows a unit (after-unit.ts) carried out. The
 * idle loop around it is teammate-runtime.ts.
 */
export class UnitWork {
  /** The unit running now: stopped when its task turns out to be someone else's (recheckClaim). */
  private readonly running = new RunningUnit();

  constructor(
    private readonly deps: TeammateDeps,
    private readonly parts: RuntimeParts,
    private readonly state: RuntimeState,
    private readonly stop: AbortSignal,
  ) {}

  get currentTask(): Task | null {
    return this.parts.hand.current;
  }

  take(task: Task): void {
    this.parts.hand.take(task);
    // A new task starts without a plan; the previous task's is no longer shown.
    this.parts.todos.newTask();
  }

  /** The current task ends (completed, failed, released): the roster, the identity and status agree at once. */
  endTask(): void {
    this.parts.hand.drop();
    this.report(this.state.busy ? 'working' : 'idle');
  }

  /**
   * Works on what is in the conversation; a model that ends its turn with its task open is
   * reminded, then gives it back. The lead agent is reminded of a stalled goal the same way (lead-goal.ts).
   */
  async work(): Promise<void> {
    this.parts.wakes.working();
    this.deps.heap?.working();
    this.state.reportedToPerson = false;
    for (let reminders = 0, goalReminders = 0; ; reminders++) {
      const end = await this.runUnit();
      const takenBack = this.running.takenBack();
      if (takenBack) {
        if (this.currentTask?.id === takenBack.id) this.closeTask(takenBack, TAKEN_BACK);
        // The model has the turn again: messages it took in during the stopped unit are still to be answered.
        continue;
      }
      // A Stop hook that exits 2 sends the model back to work with its feedback (a bounded number of times).
      if (end.kind === 'turn_end' && end.reason === 'end_turn' && (await this.parts.hooks.stopContinues())) {
        reminders--;
        continue;
      }
      const task = this.currentTask;
      const owns = task !== null && (await this.parts.outcomes.ownsOpen(task.id));
      const after = decideAfterUnit(end, { ownsTask: owns, awaitingPlan: owns && this.parts.plans.awaitingAnswer(task), reminders });
      if (after.action === 'remind' && task) {
        appendUser(this.deps.session.messages, [{ type: 'text', text: remindDirective(task, reminders + 1, MAX_REMINDERS) }]);
        continue;
      }
      await this.carryOut(after, task);
      const nudge = await this.parts.goal?.afterUnit(
        after,
        end,
        { reminders: goalReminders, reported: this.state.reportedToPerson },
        this.deps.session.messages,
      );
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
        if (await this.parts.outcomes.gaveUp(task, after.why)) this.decline(task.id);
        return this.closeTask(task, after.why);
      case 'refused':
        await this.parts.outcomes.refused(task, after.text);
        if (!task) return this.leaveUnanswered();
        // Not offered to this teammate again, even if the lead puts it back on the board.
        this.decline(task.id);
        return this.closeTask(task, 'it failed because you refused it');
      case 'budget-spent':
        await this.budgetReached(this.parts.budget.check(this.deps.session.messages), task);
        return;
      case 'outage':
        this.state.backoff = nextBackoff(this.state.backoff, after.reason, Date.now(), this.deps.backoff, after.retryAfterMs);
        await this.parts.outcomes.outage(task, after.reason, tellsOfOutage(this.state.backoff.failures) ? this.state.backoff : null);
        if (task) this.closeTask(task, `the model API was unavailable (${after.reason})`);
        else this.state.answerPending = true;
        return;
      case 'unusable':
        this.state.unusable = after.reason;
        await this.parts.outcomes.unusable(task, after.reason);
        if (task) this.closeTask(task, after.reason);
        return;
      case 'fail': {
        const withheld = after.refusedTool === undefined ? null : this.withholdTool(after.refusedTool);
        await this.parts.outcomes.modelFailed(after.error, task, withheld);
        if (!task) this.leaveUnanswered();
        if (task) this.closeTask(task, `it failed: ${describeModelError(after.error)}${withheld ? `; ${withheld}` : ''}`);
        if (after.freshConversation) {
          // Keeping what the API refused would fail every later call the same way.
          this.deps.logger.warn('the model API refused this conversation; rebuilt it from the identity and the latest summary');
          this.parts.compactor.rebuild(this.deps.session.messages);
          this.state.rewriteSession = true;
          this.save();
        }
        return;
      }
    }
  }

  /**
   * The model could not answer the messages at the end of the conversation (one notice went out):
   * they are not put to it again when the teammate next starts, only with something new. A lead
   * whose model refuses was otherwise asked again at every start, each time sending the person
   * another "could not answer".
   */
  private leaveUnanswered(): void {
    this.deps.session.unansweredAt = this.deps.session.messages.length;
    this.save();
  }

  /** A task this teammate will not take again: remembered in its session, and told to the daemon, which then wakes it for no such task. */
  private decline(id: number): void {
    this.deps.session.gaveUp.push(id);
    this.deps.link.send({ type: 'declined', task: id });
  }

  /** A server's tool the API refused is no longer offered (the lead reads why in the failed task); what to tell, or null for a fixed tool. */
  private withholdTool(index: number): string | null {
    const name = this.parts.tools.apiTools()[index]?.name;
    if (!name || !this.parts.tools.withhold(name)) return null;
    this.deps.logger.warn({ tool: name }, 'the model API refuses this MCP tool; it is no longer offered to the model');
    return `the API refuses the MCP tool ${name}, which is no longer offered to ${this.deps.identity.name}`;
  }

  /**
   * Its host had been counted lost, so the task it holds may have gone back and on to someone
   * else: if its claim is no longer the board's, the work on it stops now (a running command is
   * ended, the calls answered), not at its next write, which the board would refuse anyway.
   */
  async recheckClaim(): Promise<void> {
    const task = this.currentTask;
    if (!task || (await this.parts.outcomes.holdsClaim(task.id))) return;
    this.deps.logger.warn({ taskId: task.id }, 'this task went back to the board while this host was counted lost; stopping work on it');
    if (this.currentTask?.id === task.id && !this.running.takeBack(task)) this.closeTask(task, TAKEN_BACK);
  }

  private async runUnit(): Promise<UnitEnd> {
    this.state.busy = true;
    this.report('working');
    let end: UnitEnd = { kind: 'turn_end', reason: 'end_turn' };
    const { signal, left } = this.running.begin(this.stop);
    const events = runAgent(this.deps.session.messages, {
      model: this.deps.model,
      tools: this.parts.tools,
      ctx: teammateToolContext(this.deps, this.parts, signal, async (plan) => {
        const requestId = await this.parts.plans.submit(plan, this.currentTask);
        this.save();
        return requestId;
      }),
      compactor: this.parts.compactor,
      system: () => (this.state.system = assembleSystemPrompt(this.deps.identity, this.deps.knowledge)),
      maxTokens: this.deps.maxTokens,
      ...(this.deps.maxTokensCap ? { maxTokensCap: this.deps.maxTokensCap } : {}),
      shouldStop: () => this.stop.aborted || this.state.shutdownRequest !== null,
      shouldLeave: left,
      absorbInput: async () => {
        await this.readInbox();
        this.parts.todos.remind(this.currentTask !== null);
      },
      overBudget: (messages) => this.parts.budget.check(messages).over,
    });
    for await (const event of events) {
      if (event.type === 'turn_end') end = { kind: 'turn_end', reason: event.reason, text: event.text };
      if (event.type === 'error') end = { kind: 'error', error: event.error };
      await this.onEvent(event);
    }
    this.running.end();
    this.state.busy = false;
    this.save();
    return end;
  }

  /** Tells the model the task is no longer its own, and ends it. */
  closeTask(task: Task, why: string): void {
    appendUser(this.deps.session.messages, [{ type: 'text', text: releasedDirective(task, why) }]);
    this.save();
    this.endTask();
  }

  private async onEvent(event: AgentEvent): Promise<void> {
    const { logger } = this.deps;
    logAgentEvent(logger, event, this.currentTask?.id ?? null);
    if (event.type === 'usage') {
      this.state.backoff = null;
      this.parts.todos.called(this.currentTask !== null);
      this.countUsage(event.usage);
    }
    // Compaction changed the whole conversation: the next save replaces the file instead of appending.
    if (event.type === 'compacted') this.state.rewriteSession = true;
    if (event.type === 'step') this.save();
    if (event.type === 'tool_result' && event.effect) await this.applyEffect(event.effect);
  }

  /** A call's tokens, the teammate's own or a helper's: in its usage, its budget and the roster. */
  countUsage(usage: Usage): void {
    const { session, link } = this.deps;
    for (const key of Object.keys(session.usage) as (keyof typeof session.usage)[]) session.usage[key] += usage[key];
    link.send({ type: 'usage', usage: session.usage });
  }

  private async applyEffect(effect: ToolEffect): Promise<void> {
    this.parts.hooks.taskEvent(effect);
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
        await this.parts.outcomes.finished(effect.id);
        if (this.currentTask?.id === effect.id) this.endTask();
        return;
      case 'idle':
        return;
      case 'reported':
        // A question or progress for the person: the lead waits for their answer, it is not stalled.
        if (!effect.final) this.state.reportedToPerson = true;
        return;
      case 'todos':
        this.parts.todos.written(effect.items);
        return;
    }
  }

  /** New inbox messages into the conversation; a signed shutdown request is kept for the loop. True when something was added. */
  async readInbox(): Promise<boolean> {
    if (this.state.shutdownRequest) return false;
    const { shutdown, injected } = await this.parts.intake.take();
    this.state.shutdownRequest = shutdown;
    const told = this.parts.jobIntake.take();
    return injected || told;
  }

  /** Stops taking work for good: the task goes back, the lead is told once per budget, and the loop ends. */
  async budgetReached(verdict: BudgetVerdict, task: Task | null): Promise<void> {
    if (!verdict.over) return;
    const { reason, tell } = this.parts.budget.stop(verdict);
    await this.parts.outcomes.budgetReached(task, reason, tell, verdict.which === 'team' ? null : this.deps.identity.name);
    if (task) this.closeTask(task, 'the token budget is spent');
    this.save();
  }

  /** `durable` for a save another durable write depends on (a rewrite always is). */
  save(durable = false): void {
    if (this.state.rewriteSession) this.deps.sessions.rewrite(this.deps.session);
    else this.deps.sessions.save(this.deps.session, { durable });
    this.state.rewriteSession = false;
  }

  /** Idle with a task whose plan is with the lead is waiting-plan, so status and watch show why it does nothing. */
  report(status: 'idle' | 'working'): void {
    const task = this.currentTask;
    const shown = status === 'idle' && task !== null && this.parts.plans.awaitingAnswer(task) ? 'waiting-plan' : status;
    this.parts.status.send(shown, task?.id ?? null, this.state.backoff, this.parts.wakes.wakes);
  }
}
