import { appendUser } from '../agent/conversation.js';
import type { Logger } from '../log/logger.js';
import type { EventHooks } from '../hooks/event-hooks.js';
import type { ToolEffect } from '../contracts/tool.js';
import type { Session } from './session-store.js';

/** Times a Stop hook may send the model back to work in one stretch: a hook that always says "continue" cannot loop forever. */
const MAX_STOP_CONTINUES = 3;

/**
 * The hooks of a teammate's life outside tool calls: SessionStart, SessionEnd, UserPromptSubmit (a message
 * or a task put into the conversation), Stop (a turn ends: exit 2 continues it with the hook's
 * feedback), TeammateIdle, and TaskClaimed / TaskCompleted / TaskFailed. Without settings
 * hooks, each is a no-op.
 */
export class RuntimeHooks {
  private continued = 0;
  private idleSaid = false;
  /** What SessionStart hooks gave the model: it goes into the conversation with the next prompt. */
  private startContext: string[] = [];

  constructor(
    private readonly events: EventHooks | null,
    private readonly session: Session,
    private readonly logger: Logger,
  ) {}

  async sessionStart(): Promise<void> {
    const outcome = await this.events?.run('SessionStart', { source: 'startup' });
    this.startContext = [...(outcome?.context ?? [])];
  }

  /** A helper (the task tool) ended: SubagentStop hooks, told without a say in it. */
  async subagentStop(description: string): Promise<void> {
    await this.events?.run('SubagentStop', { stop_hook_active: false, description });
  }

  /** Older messages are about to be summarized away: PreCompact hooks (always `auto`: nobody compacts a teammate by hand). */
  async preCompact(): Promise<void> {
    await this.events?.run('PreCompact', { trigger: 'auto', custom_instructions: '' });
  }

  /** The teammate stops (a shutdown, its idle timeout, its budget, an error): `reason` says which, as Claude Code's SessionEnd says why. */
  async sessionEnd(reason: string): Promise<void> {
    await this.events?.run('SessionEnd', { reason });
  }

  /** After a message or a task directive went into the conversation; exit 2 adds the hook's feedback to it. */
  async promptSubmitted(): Promise<void> {
    if (!this.events) return;
    this.idleSaid = false;
    this.continued = 0;
    const last = this.session.messages.at(-1);
    const prompt =
      last?.role === 'user' && Array.isArray(last.content)
        ? last.content
            .flatMap((block) =>
              block.type === 'text' ? [block.text] : block.type === 'tool_result' && typeof block.content === 'string' ? [block.content] : [],
            )
            .join('\n')
        : '';
    const outcome = await this.events.run('UserPromptSubmit', { prompt });
    // Context from the hooks rides with the prompt, as Claude Code adds it (SessionStart's once, with the first).
    const texts = [
      ...this.startContext.map((context) => `[SessionStart hook] ${context}`),
      ...outcome.context.map((context) => `[UserPromptSubmit hook] ${context}`),
      ...(outcome.block ? [`[UserPromptSubmit hook] ${outcome.block.reason}`] : []),
    ];
    this.startContext = [];
    if (texts.length > 0)
      appendUser(
        this.session.messages,
        texts.map((text) => ({ type: 'text' as const, text })),
      );
  }

  /** A turn ended: true when a Stop hook (exit 2) sends the model back to work, its feedback in the conversation. */
  async stopContinues(): Promise<boolean> {
    if (!this.events || this.continued >= MAX_STOP_CONTINUES) return false;
    // As Claude Code says it: true once a Stop hook has already sent the model back (a hook checks it to avoid a loop).
    const outcome = await this.events.run('Stop', { stop_hook_active: this.continued > 0 });
    if (!outcome.block) return false;
    this.continued++;
    this.logger.info({ hook: outcome.block.command, times: this.continued }, 'a Stop hook continued the turn');
    appendUser(this.session.messages, [{ type: 'text', text: `[Stop hook] ${outcome.block.reason}` }]);
    return true;
  }

  /** Going idle (once per idle stretch). */
  async idle(): Promise<void> {
    if (!this.events || this.idleSaid) return;
    this.idleSaid = true;
    this.continued = 0;
    await this.events.run('TeammateIdle', { task_id: null });
  }

  /** A tool claimed, completed or failed a task: told to the hooks without holding up the work. */
  taskEvent(effect: ToolEffect): void {
    if (!this.events || effect.kind === 'idle' || effect.kind === 'todos' || effect.kind === 'reported') return;
    const event = effect.kind === 'task-claimed' ? 'TaskClaimed' : effect.kind === 'task-completed' ? 'TaskCompleted' : 'TaskFailed';
    this.idleSaid = false;
    this.events.run(event, { task_id: effect.id }).catch((error: unknown) => this.logger.warn({ err: error, event }, 'hook could not run'));
  }
}
