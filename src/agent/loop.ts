import type { ChatMessage, ModelClient, Usage } from '../model/model-client.js';
import { isPromptTooLong } from '../model/model-client.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/tool.js';
import type { Compactor } from './compactor.js';
import { appendUser } from './conversation.js';

export type TurnEnd = 'end_turn' | 'idle' | 'stopped' | 'budget' | 'step_limit';

export type AgentEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; content: string; isError: boolean }
  | { type: 'usage'; usage: Usage }
  | { type: 'compacted'; how: 'trimmed' | 'summarized' }
  /** The conversation changed and is consistent: a moment to save it. */
  | { type: 'step' }
  | { type: 'turn_end'; reason: TurnEnd }
  | { type: 'error'; error: unknown };

export interface AgentDeps {
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly ctx: ToolContext;
  readonly compactor: Compactor;
  readonly system: string;
  readonly maxTokens: number;
  /** Checked before each model call and after each tool call. */
  readonly shouldStop: () => boolean;
  /** True when the next call would exceed the token budget. */
  readonly overBudget: (messages: readonly ChatMessage[]) => boolean;
  /** Model calls allowed in one unit of work: a model stuck repeating a failing call stops here. */
  readonly maxSteps?: number;
}

const MAX_CONTINUES = 3;
const DEFAULT_MAX_STEPS = 100;

/**
 * One unit of work: call the model, run the tools it asks for, repeat until it stops calling
 * tools (or calls `idle`). Does no I/O of its own — the model and the tools are injected —
 * and reports everything as events for the worker to log, save and forward.
 */
export async function* runAgent(messages: ChatMessage[], deps: AgentDeps): AsyncGenerator<AgentEvent, void, undefined> {
  let compactedAfterError = false;
  let continues = 0;
  for (let steps = 0; ; steps++) {
    if (deps.shouldStop()) return yield { type: 'turn_end', reason: 'stopped' };
    if (steps >= (deps.maxSteps ?? DEFAULT_MAX_STEPS)) return yield { type: 'turn_end', reason: 'step_limit' };
    if (deps.overBudget(messages)) return yield { type: 'turn_end', reason: 'budget' };
    const how = await deps.compactor.maybeCompact(messages, deps.system);
    if (how !== 'none') yield { type: 'compacted', how };
    let response;
    try {
      response = await deps.model.create({ system: deps.system, messages, tools: deps.tools.apiTools(), maxTokens: deps.maxTokens }, deps.ctx.signal);
    } catch (error) {
      if (isPromptTooLong(error) && !compactedAfterError) {
        compactedAfterError = true;
        const forced = await deps.compactor.maybeCompact(messages, deps.system, true);
        yield { type: 'compacted', how: forced === 'none' ? 'trimmed' : forced };
        continue;
      }
      return yield { type: 'error', error };
    }
    compactedAfterError = false;
    yield { type: 'usage', usage: response.usage };
    // An empty answer is not stored: the conversation never holds a made-up assistant turn.
    if (response.content.length > 0) messages.push({ role: 'assistant', content: response.content });
    for (const block of response.content) if (block.type === 'text' && block.text) yield { type: 'text', text: block.text };
    const uses = response.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) {
      if (response.stopReason === 'max_tokens' && continues < MAX_CONTINUES) {
        continues++;
        appendUser(messages, [{ type: 'text', text: '[teamd:continue]\nYou reached the output limit. Continue exactly where you stopped.' }]);
        yield { type: 'step' };
        continue;
      }
      yield { type: 'step' };
      return yield { type: 'turn_end', reason: 'end_turn' };
    }
    continues = 0;
    const results: ChatMessage['content'] = [];
    let idle = false;
    for (const use of uses) {
      if (use.type !== 'tool_use') continue;
      yield { type: 'tool_call', id: use.id, name: use.name, input: use.input };
      const result = await deps.tools.run(use.name, use.input, deps.ctx);
      if (use.name === 'idle') idle = true;
      yield { type: 'tool_result', id: use.id, name: use.name, content: result.content, isError: result.isError === true };
      results.push({ type: 'tool_result', tool_use_id: use.id, content: result.content, ...(result.isError ? { is_error: true } : {}) });
    }
    messages.push({ role: 'user', content: results });
    yield { type: 'step' };
    if (idle) return yield { type: 'turn_end', reason: 'idle' };
    if (deps.shouldStop()) return yield { type: 'turn_end', reason: 'stopped' };
  }
}
