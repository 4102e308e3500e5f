import { Compactor } from '../agent/compactor.js';
import { appendUser, estimateTokens } from '../agent/conversation.js';
import { messageDirective, planDirective, releasedDirective, remindDirective, resumeDirective, taskDirective } from '../agent/directives.js';
import { runAgent, type AgentEvent, type TurnEnd } from '../agent/loop.js';
import { identityDirective, systemPrompt, type Identity } from '../agent/system-prompt.js';
import type { Board } from '../board/board.js';
import type { Task } from '../board/task.js';
import type { InboxConsumer } from '../inbox/consumer.js';
import type { Mailbox } from '../inbox/mailbox.js';
import type { Message } from '../inbox/message.js';
import type { Logger } from '../logger.js';
import type { ModelClient } from '../model/model-client.js';
import { describeModelError, failureClass, ModelError } from '../model/model-errors.js';
import { LEAD } from '../roster/roster.js';
import { ALL_TOOLS, ToolRegistry } from '../tools/registry.js';
import type { ShellLauncher, ToolContext, ToolEffect } from '../tools/tool.js';
import type { Doorbell } from '../watch/doorbell.js';
import type { DaemonLink } from './daemon-link.js';
import { waitForWork } from './idle-wait.js';
import { nextBackoff, type BackoffPolicy, type ModelBackoff } from './model-backoff.js';
import type { Session, SessionStore } from './session-store.js';
import { TaskOutcomes } from './task-outcomes.js';

export interface TeammateDeps {
  readonly identity: Identity;
  readonly stateDir: string;
  readonly shell: ShellLauncher;
  /** Whether a grant-type message carries the person's or the daemon's signature (inbox/protocol-key.ts). */
  readonly verifyGrant: (message: Message) => boolean;
  readonly logger: Logger;
  readonly board: Board;
  readonly mailbox: Mailbox;
  readonly consumer: InboxConsumer;
  readonly bell: Doorbell;
  readonly link: DaemonLink;
  readonly model: ModelClient;
  readonly sessions: SessionStore;
  readonly session: Session;
  /** Idle this long with nothing to do: report asleep and end (0 = never). */
  readonly idleTimeoutMs: number;
  readonly maxTokens: number;
  /** The most one call may ask for (the model's output limit). */
  readonly maxTokensCap?: number;
  readonly compactThresholdTokens: number;
  readonly budgetTokens?: number | undefined;
  /** How long to wait out a model outage that outlasted the SDK's retries. */
  readonly backoff: BackoffPolicy;
}

export type RuntimeEnd = 'shutdown' | 'asleep' | 'stopped' | 'errored';

/** How a unit of work ended: its last turn_end, or the error that ended it. */
type UnitEnd =
  { readonly kind: 'turn_end'; readonly reason: TurnEnd; readonly text?: string | undefined } | { readonly kind: 'error'; readonly error: unknown };

/** Reminders a model gets when it ends its turn with its task unfinished, before the task goes back to the board. */
export const MAX_REMINDERS = 2;

/**
 * A teammate's life (DESIGN §3): work on what arrives, then, when idle, in this order —
 * new inbox messages; a task it still owns; a ready task to claim; otherwise sleep on the
 * doorbell (never calling the model while idle) until the idle timeout. A model outage makes
 * it give its task back and wait (backing off); a refused key or model makes it stop taking work.
 */
export class TeammateRuntime {
  private readonly stopper = new AbortController();
  private readonly claims = new Map<number, number>();
  private readonly worked = new Set<number>();
  private readonly tools: ToolRegistry;
  private readonly compactor: Compactor;
  private readonly system: string;
  private readonly outcomes: TaskOutcomes;
  private currentTask: Task | null = null;
  private budgetSpent = false;
  private shutdownRequest: Message | null = null;
  private backoff: ModelBackoff | null = null;
  /** Messages are in the conversation that the model has not answered yet (a call failed). */
  private answerPending = false;
  private unusable: string | null = null;
  private reported: string | null = null;
  /** Inside a unit of work (the model or a tool is running). */
  private busy = false;

  constructor(private readonly deps: TeammateDeps) {
    this.tools = new ToolRegistry(ALL_TOOLS, () => this.planApproved());
    this.system = systemPrompt(deps.identity);
    this.outcomes = new TaskOutcomes({ name: deps.identity.name, board: deps.board, mailbox: deps.mailbox, logger: deps.logger, claims: this.claims });
    this.compactor = new Compactor({
      model: deps.model,
      thresholdTokens: deps.compactThresholdTokens,
      identity: () => identityDirective(deps.identity, this.currentTask),
    });
  }

  stop(): void {
    this.stopper.abort();
  }

  async run(): Promise<RuntimeEnd> {
    const { link } = this.deps;
    link.send({ type: 'ready' });
    this.report('idle');
    let idleSince = Date.now();
    while (!this.stopper.signal.aborted) {
      if (this.unusable !== null) {
        link.send({ type: 'errored', reason: this.unusable });
        return 'errored';
      }
      const injected = this.readInbox();
      if (this.shutdownRequest) {
        this.answerShutdown(this.shutdownRequest);
        return 'shutdown';
      }
      if (injected) this.answerPending = true;
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
      if (!this.holdsTask() && (await this.takeNextTask())) {
        await this.work();
        idleSince = Date.now();
        continue;
      }
      this.report('idle');
      if ((await waitForWork(this.deps.bell, this.stopper.signal, idleSince, this.deps.idleTimeoutMs)) === 'timeout') {
        this.deps.link.send({ type: 'asleep' });
        return 'asleep';
      }
    }
    return 'stopped';
  }

  /** A task it still owns (once per process: never hot-loop on one the model left open), else a claim. */
  private async takeNextTask(): Promise<boolean> {
    const { board, identity, session } = this.deps;
    const own = board.list({ status: 'in_progress', owner: identity.name }).tasks.find((t) => !this.worked.has(t.id));
    if (own) {
      this.take(own);
      appendUser(session.messages, [
        { type: 'text', text: identityDirective(identity, own) },
        { type: 'text', text: resumeDirective(own) },
      ]);
      return true;
    }
    if (this.budgetSpent) return false;
    const claimed = await board.claimNext(identity.name, { skip: new Set(session.gaveUp) });
    if (!claimed) return false;
    this.take(claimed);
    appendUser(session.messages, [{ type: 'text', text: taskDirective(claimed) }]);
    this.deps.logger.info({ taskId: claimed.id, claim: claimed.claim }, 'task claimed');
    return true;
  }

  private take(task: Task): void {
    this.worked.add(task.id);
    this.claims.set(task.id, task.claim);
    this.currentTask = task;
  }

  /** The current task ends (completed, failed, released): the roster, the identity and status agree at once. */
  private endTask(): void {
    this.currentTask = null;
    this.report(this.busy ? 'working' : 'idle');
  }

  /** Works on what is in the conversation; a model that ends its turn with its task open is reminded, then gives it back. */
  private async work(): Promise<void> {
    for (let reminders = 0; ; reminders++) {
      const end = await this.runUnit();
      const task = this.currentTask;
      if (end.kind === 'error') return this.settleError(end.error, task);
      if (end.reason === 'refusal') {
        await this.outcomes.refused(task, end.text ?? '');
        if (task) {
          // Not offered to this teammate again, even if the lead puts it back on the board.
          this.deps.session.gaveUp.push(task.id);
          this.closeTask(task, 'it failed because you refused it');
        }
        return;
      }
      if (end.reason === 'budget') {
        this.budgetSpent = true;
        await this.outcomes.budgetReached(task, this.deps.budgetTokens);
        if (task) this.closeTask(task, 'your token budget is spent');
        return;
      }
      const stillOwned = task !== null && this.outcomes.ownsOpen(task.id);
      if (end.reason === 'step_limit' && !stillOwned) this.deps.logger.warn('stopped after too many model calls in a row');
      // Waiting for the lead's answer to its plan is not leaving the task: the answer wakes it.
      if (end.reason === 'stopped' || !stillOwned || this.awaitingPlanAnswer(task)) return;
      if (end.reason !== 'step_limit' && reminders < MAX_REMINDERS) {
        appendUser(this.deps.session.messages, [{ type: 'text', text: remindDirective(task, reminders + 1, MAX_REMINDERS) }]);
        continue;
      }
      const why =
        end.reason === 'step_limit'
          ? `I made too many model calls in a row on it without finishing (see teamd logs ${this.deps.identity.name})`
          : `the model ended its turn ${reminders + 1} times without completing or failing it`;
      if (await this.outcomes.gaveUp(task, why)) this.deps.session.gaveUp.push(task.id);
      this.closeTask(task, why);
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
      system: this.system,
      maxTokens: this.deps.maxTokens,
      ...(this.deps.maxTokensCap ? { maxTokensCap: this.deps.maxTokensCap } : {}),
      shouldStop: () => this.stopper.signal.aborted || this.shutdownRequest !== null,
      absorbInput: () => void this.readInbox(),
      overBudget: (messages) => this.overBudget(messages),
    });
    for await (const event of events) {
      if (event.type === 'turn_end') end = { kind: 'turn_end', reason: event.reason, text: event.text };
      if (event.type === 'error') end = { kind: 'error', error: event.error };
      this.onEvent(event);
    }
    this.busy = false;
    this.save();
    return end;
  }

  /** Transient: give the task back and wait; fatal: stop taking work; anything else: the task fails. */
  private async settleError(error: unknown, task: Task | null): Promise<void> {
    const reason = describeModelError(error);
    switch (failureClass(error)) {
      case 'aborted':
        return;
      case 'transient':
        this.backoff = nextBackoff(this.backoff, reason, Date.now(), this.deps.backoff);
        await this.outcomes.outage(task, reason);
        if (task) this.closeTask(task, `the model API was unavailable (${reason})`);
        else this.answerPending = true;
        return;
      case 'fatal':
        this.unusable = reason;
        await this.outcomes.unusable(task, reason);
        if (task) this.closeTask(task, reason);
        return;
      case 'prompt_too_long':
      case 'task':
        await this.outcomes.modelFailed(error, task);
        if (task) this.closeTask(task, `it failed: ${reason}`);
        // The API refused the conversation itself: keeping it would fail every later call the same way.
        if (error instanceof ModelError && (error.kind === 'bad_request' || error.kind === 'prompt_too_long')) {
          this.deps.logger.warn({ reason }, 'the model API refused this conversation; starting a fresh one');
          this.deps.session.messages.length = 0;
          this.save();
        }
        return;
    }
  }

  /** Tells the model the task is no longer its own, and ends it. */
  private closeTask(task: Task, why: string): void {
    appendUser(this.deps.session.messages, [{ type: 'text', text: releasedDirective(task, why) }]);
    this.save();
    this.endTask();
  }

  private onEvent(event: AgentEvent): void {
    const { session, link, logger } = this.deps;
    switch (event.type) {
      case 'usage':
        if (this.backoff) {
          this.backoff = null;
          this.reported = null;
        }
        for (const key of Object.keys(session.usage) as (keyof typeof session.usage)[]) session.usage[key] += event.usage[key];
        link.send({ type: 'usage', usage: session.usage });
        return;
      case 'step':
        this.save();
        return;
      case 'text':
        logger.info({ text: event.text.slice(0, 500) }, 'model said');
        return;
      case 'tool_call':
        logger.info({ tool: event.name, input: event.input }, 'tool call');
        return;
      case 'tool_result':
        logger.info({ tool: event.name, isError: event.isError, output: event.content.slice(0, 300) }, 'tool result');
        if (event.effect) this.applyEffect(event.effect);
        return;
      case 'compacted':
        logger.info({ how: event.how }, 'conversation compacted');
        return;
      case 'turn_end':
        logger.info({ reason: event.reason }, 'turn ended');
        return;
      case 'error':
        logger.warn({ err: event.error }, 'model call failed');
        return;
    }
  }

  private applyEffect(effect: ToolEffect): void {
    switch (effect.kind) {
      case 'task-claimed':
        this.take(this.deps.board.get(effect.id));
        this.report('working');
        return;
      case 'task-completed':
      case 'task-failed':
        this.outcomes.finished(effect.id);
        if (this.currentTask?.id === effect.id) this.endTask();
        return;
      case 'idle':
        return;
    }
  }

  private holdsTask(): boolean {
    if (this.currentTask && !this.outcomes.ownsOpen(this.currentTask.id)) this.endTask();
    return this.currentTask !== null;
  }

  private awaitingPlanAnswer(task: Task): boolean {
    return this.deps.session.planRequests.some((r) => !r.answered && r.task === task.id && r.claim === task.claim);
  }

  /** A required plan is approved for this very claim of the current task. */
  private planApproved(): boolean {
    const { identity, session } = this.deps;
    if (!identity.planRequired) return true;
    const task = this.currentTask;
    return task !== null && session.approvedPlan?.task === task.id && session.approvedPlan.claim === task.claim;
  }

  private overBudget(messages: readonly { role: string }[]): boolean {
    const budget = this.deps.budgetTokens;
    if (budget === undefined) return false;
    const usage = this.deps.session.usage;
    const spent = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    return spent + estimateTokens(messages as never, this.system) + this.deps.maxTokens > budget;
  }

  /**
   * Reads the inbox: a signed shutdown request is kept for the loop to answer (nothing after it
   * is taken); every other message goes into the conversation. True when something was added.
   */
  private readInbox(): boolean {
    const { consumer } = this.deps;
    if (this.shutdownRequest) return false;
    const batch = consumer.read();
    if (batch.messages.length === 0) return false;
    const shutdown = batch.messages.find((m) => m.type === 'shutdown_request' && this.granted(m));
    if (shutdown) {
      this.shutdownRequest = shutdown;
      this.remember(batch.messages);
      consumer.commit(batch);
      return false;
    }
    const injected = this.inject(batch.messages);
    this.remember(batch.messages);
    this.save();
    consumer.commit(batch);
    return injected;
  }

  /** A grant (plan answer, shutdown request) signed by the person or the daemon; anything else is logged and ignored. */
  private granted(message: Message): boolean {
    if (this.deps.verifyGrant(message)) return true;
    this.deps.logger.warn({ messageId: message.id, type: message.type, from: message.from }, 'ignored an unsigned or forged protocol message');
    return false;
  }

  /** Puts messages into the conversation; plan answers change what the teammate may do. */
  private inject(messages: readonly Message[]): boolean {
    const { session, identity } = this.deps;
    const blocks: { type: 'text'; text: string }[] = [];
    for (const message of messages) {
      if (message.type === 'plan_approval_response') {
        const request = session.planRequests.find((r) => r.requestId === message.requestId);
        if (message.from !== LEAD || !request || !this.granted(message)) {
          this.deps.logger.warn({ messageId: message.id, from: message.from }, 'ignored a plan answer that answers no request of ours');
          continue;
        }
        request.answered = true;
        const approved = message.approve === true && request.task !== null && request.claim !== null;
        session.approvedPlan = approved ? { task: request.task!, claim: request.claim! } : null;
        blocks.push({ type: 'text', text: planDirective(message.approve === true, message.content) });
      } else if (message.type === 'shutdown_request') {
        continue; // a signed one is answered before injection; this one was forged (already logged)
      } else if (message.from !== identity.name) {
        blocks.push({ type: 'text', text: messageDirective(message) });
      }
    }
    if (blocks.length > 0) appendUser(session.messages, blocks);
    return blocks.length > 0;
  }

  private answerShutdown(request: Message): void {
    this.deps.link.send({ type: 'shutting-down' });
    this.deps.mailbox.send({
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
    const { identity, board, mailbox, session } = this.deps;
    return {
      name: identity.name,
      workspace: identity.workspace,
      stateDir: this.deps.stateDir,
      shell: this.deps.shell,
      board,
      mailbox,
      signal: this.stopper.signal,
      claims: this.claims,
      control: {
        submitPlan: (plan) => {
          const task = this.currentTask;
          const request = mailbox.send({
            from: identity.name,
            to: LEAD,
            type: 'plan_approval_request',
            content: plan,
            ...(task ? { extra: { taskId: task.id } } : {}),
          });
          session.planRequests.push({ requestId: request.requestId!, task: task?.id ?? null, claim: task?.claim ?? null, answered: false });
          this.save();
          return request.requestId!;
        },
      },
    };
  }

  private remember(messages: readonly Message[]): void {
    this.deps.session.handled.push(...messages.map((m) => m.id));
  }

  private save(): void {
    this.deps.sessions.save(this.deps.session);
  }

  /** Tells the daemon what it is doing, only when that changes (each report rewrites the roster). */
  private report(status: 'idle' | 'working'): void {
    const task = this.currentTask?.id ?? null;
    const waiting = this.backoff && Date.now() < this.backoff.until ? this.backoff : null;
    const problem = waiting ? `model unavailable: ${waiting.reason}` : null;
    const retryAt = waiting ? new Date(waiting.until).toISOString() : null;
    const key = JSON.stringify([status, task, problem, retryAt]);
    if (this.reported === key) return;
    this.reported = key;
    this.deps.link.send({ type: 'status', status, task, problem, retryAt });
  }
}
