import { Compactor } from '../agent/compactor.js';
import { appendUser, estimateTokens } from '../agent/conversation.js';
import { messageDirective, planDirective, resumeDirective, taskDirective } from '../agent/directives.js';
import { runAgent, type AgentEvent } from '../agent/loop.js';
import { identityDirective, systemPrompt, type Identity } from '../agent/system-prompt.js';
import type { Board } from '../board/board.js';
import type { Task } from '../board/task.js';
import type { InboxConsumer } from '../inbox/consumer.js';
import type { Mailbox } from '../inbox/mailbox.js';
import type { Message } from '../inbox/message.js';
import type { Logger } from '../logger.js';
import type { ModelClient } from '../model/model-client.js';
import { LEAD } from '../roster/roster.js';
import { ALL_TOOLS, ToolRegistry } from '../tools/registry.js';
import type { ShellLauncher, ToolContext } from '../tools/tool.js';
import type { Doorbell } from '../watch/doorbell.js';
import type { DaemonLink } from './daemon-link.js';
import { waitForWork } from './idle-wait.js';
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
  readonly compactThresholdTokens: number;
  readonly budgetTokens?: number | undefined;
}

export type RuntimeEnd = 'shutdown' | 'asleep' | 'stopped';

/**
 * A teammate's life (DESIGN §3): work on what arrives, then, when idle, in this order —
 * new inbox messages; a task it still owns; a ready task to claim; otherwise sleep on the
 * doorbell (never calling the model while idle) until the idle timeout.
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
  private reported: { status: 'idle' | 'working'; task: number | null } | null = null;

  constructor(private readonly deps: TeammateDeps) {
    this.tools = new ToolRegistry(ALL_TOOLS, () => !deps.identity.planRequired || deps.session.planApproved);
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
    const { link, consumer } = this.deps;
    link.send({ type: 'ready' });
    this.report(null);
    let idleSince = Date.now();
    while (!this.stopper.signal.aborted) {
      const batch = consumer.read();
      const shutdown = batch.messages.find((m) => m.type === 'shutdown_request' && this.granted(m));
      if (shutdown) {
        this.remember(batch.messages);
        consumer.commit(batch);
        this.answerShutdown(shutdown);
        return 'shutdown';
      }
      const injected = this.inject(batch.messages);
      if (batch.messages.length > 0) {
        this.remember(batch.messages);
        this.save();
      }
      consumer.commit(batch);
      if (injected) {
        await this.work(this.currentTask);
        idleSince = Date.now();
        continue;
      }
      const next = await this.nextTask();
      if (next) {
        await this.work(next);
        idleSince = Date.now();
        continue;
      }
      this.report(null);
      if ((await waitForWork(this.deps.bell, this.stopper.signal, idleSince, this.deps.idleTimeoutMs)) === 'timeout') {
        this.deps.link.send({ type: 'asleep' });
        return 'asleep';
      }
    }
    return 'stopped';
  }

  /** A task it still owns (once per process: never hot-loop on one the model left open), else a claim. */
  private async nextTask(): Promise<Task | null> {
    const { board, identity, session } = this.deps;
    const own = board.list({ status: 'in_progress', owner: identity.name }).tasks.find((t) => !this.worked.has(t.id));
    if (own) {
      this.take(own);
      appendUser(session.messages, [
        { type: 'text', text: identityDirective(identity, own) },
        { type: 'text', text: resumeDirective(own) },
      ]);
      return own;
    }
    if (this.budgetSpent) return null;
    const claimed = await board.claimNext(identity.name);
    if (!claimed) return null;
    this.take(claimed);
    appendUser(session.messages, [{ type: 'text', text: taskDirective(claimed) }]);
    this.deps.logger.info({ taskId: claimed.id, claim: claimed.claim }, 'task claimed');
    return claimed;
  }

  private take(task: Task): void {
    this.worked.add(task.id);
    this.claims.set(task.id, task.claim);
    this.currentTask = task;
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
        if (message.from !== LEAD || !message.requestId || !session.planRequests.includes(message.requestId) || !this.granted(message)) {
          this.deps.logger.warn({ messageId: message.id, from: message.from }, 'ignored a plan answer that answers no request of ours');
          continue;
        }
        session.planApproved = message.approve === true;
        blocks.push({ type: 'text', text: planDirective(message.approve === true, message.content) });
      } else if (message.type === 'shutdown_request') {
        continue; // a signed one ends the loop before injection; this one was forged (already logged)
      } else if (message.from !== identity.name) {
        blocks.push({ type: 'text', text: messageDirective(message) });
      }
    }
    if (blocks.length > 0) appendUser(session.messages, blocks);
    return blocks.length > 0;
  }

  private async work(task: Task | null): Promise<void> {
    const { logger, session } = this.deps;
    this.report(task?.id ?? null);
    const ctx = this.toolContext();
    const events = runAgent(session.messages, {
      model: this.deps.model,
      tools: this.tools,
      ctx,
      compactor: this.compactor,
      system: this.system,
      maxTokens: this.deps.maxTokens,
      shouldStop: () => this.stopper.signal.aborted || this.shutdownPending(),
      overBudget: (messages) => this.overBudget(messages),
    });
    for await (const event of events) await this.onEvent(event, task, logger);
    this.save();
  }

  private async onEvent(event: AgentEvent, task: Task | null, logger: Logger): Promise<void> {
    const { session, link } = this.deps;
    switch (event.type) {
      case 'usage':
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
        if (!event.isError && (event.name === 'complete_task' || event.name === 'fail_task') && this.currentTask) this.outcomes.finished(this.currentTask.id);
        return;
      case 'compacted':
        logger.info({ how: event.how }, 'conversation compacted');
        return;
      case 'turn_end':
        logger.info({ reason: event.reason }, 'turn ended');
        if (event.reason === 'budget') {
          this.budgetSpent = true;
          await this.outcomes.budgetReached(task, this.deps.budgetTokens);
        }
        if (event.reason === 'step_limit') this.outcomes.stepLimit(task);
        return;
      case 'error':
        await this.outcomes.modelFailed(event.error, task);
        return;
    }
  }

  private overBudget(messages: readonly { role: string }[]): boolean {
    const budget = this.deps.budgetTokens;
    if (budget === undefined) return false;
    const usage = this.deps.session.usage;
    const spent = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    return spent + estimateTokens(messages as never, this.system) + this.deps.maxTokens > budget;
  }

  private shutdownPending(): boolean {
    return this.deps.consumer.read().messages.some((m) => m.type === 'shutdown_request');
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
        idle: () => undefined,
        submitPlan: (plan) => {
          const request = mailbox.send({ from: identity.name, to: LEAD, type: 'plan_approval_request', content: plan });
          session.planRequests.push(request.requestId!);
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
  private report(task: number | null): void {
    const status = task === null ? 'idle' : 'working';
    if (this.reported?.status === status && this.reported.task === task) return;
    this.reported = { status, task };
    this.deps.link.send({ type: 'status', status, task });
  }
}
