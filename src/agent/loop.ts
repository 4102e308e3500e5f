import type { ChatMessage, ContentBlock, ModelClient, ModelResponse, Usage } from '../contracts/model.js';
import { failureClass, ModelError } from '../model/model-errors.js';
import type { ToolContext, ToolEffect, ToolResult, ToolSet } from '../contracts/tool.js';
import type { CompactionHow, Compactor } from './compactor.js';
import { appendUser, estimateTokens } from './conversation.js';
import { continueDirective } from '../contracts/directives.js';

export type TurnEnd = 'end_turn' | 'idle' | 'stopped' | 'budget' | 'step_limit' | 'refusal';

export type AgentEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; id: string; name: string; content: string; isError: boolean; effect?: ToolEffect | undefined }
  | { type: 'usage'; usage: Usage }
  | { type: 'compacted'; how: CompactionHow }
  /** The conversation changed and is consistent: a moment to save it. */
  | { type: 'step' }
  /** `text`: what the model said when it refused. */
  | { type: 'turn_end'; reason: TurnEnd; text?: string }
  | { type: 'error'; error: unknown };

export interface AgentDeps {
  readonly model: ModelClient;
  readonly tools: ToolSet;
  readonly ctx: ToolContext;
  readonly compactor: Compactor;
  /** The system prompt, or how to assemble it before each call (memory and skills may change meanwhile). */
  readonly system: string | (() => string);
  readonly maxTokens: number;
  /** The most a call may ask for when an answer was cut off inside a tool call (the model's limit). */
  readonly maxTokensCap?: number;
  /** Checked before each model call and after each tool call. */
  readonly shouldStop: () => boolean;
  /**
   * The work in hand is no longer this teammate's (its task was taken back): like a stop, but the
   * process goes on, so the calls of the last answer are answered (cut short, or not run) and the
   * conversation stays whole. The caller aborts `ctx.signal` with it.
   */
  readonly shouldLeave?: () => boolean;
  /** Puts what arrived meanwhile (messages) into the conversation; called before each model call. */
  readonly absorbInput?: (messages: ChatMessage[]) => void | Promise<void>;
  /** True when the next call would exceed the token budget. */
  readonly overBudget: (messages: readonly ChatMessage[]) => boolean;
  /** Model calls allowed in one unit of work: a model stuck repeating a failing call stops here. */
  readonly maxSteps?: number;
}

const MAX_CONTINUES = 3;
const NOT_RUN = '[teamd:interrupted]\nThis call was not run: the work it was for is no longer yours.';
const DEFAULT_MAX_STEPS = 100;

/**
 * One unit of work: call the model, run the tools it asks for, repeat until it stops calling
 * tools (or calls `idle`). Does no I/O of its own — the model, the tools and the inbox are
 * injected — and reports everything as events for the worker to log, save and forward.
 *
 * Stop reasons: `pause_turn` continues the same assistant turn; `max_tokens` mid-text asks the
 * model to continue, mid-tool-call answers the cut-off call as not run and raises the output
 * limit; `model_context_window_exceeded` does the same after compacting; `refusal` ends the unit
 * without storing the refused turn.
 */
export async function* runAgent(messages: ChatMessage[], deps: AgentDeps): AsyncGenerator<AgentEvent, void, undefined> {
  /** Prompt-too-long answers in a row: the first compacts, the second rebuilds, the third is an error. */
  let tooLong = 0;
  let continues = 0;
  let maxTokens = deps.maxTokens;
  /** After pause_turn: the next answer extends the last assistant message. */
  let extending = false;
  /** The model stopped because the context window filled up: compact before the next call. */
  let windowFull = false;
  /** The window the API stated in its "prompt is too long", in the estimate's units: the next compaction cuts by it. */
  let statedWindow: number | undefined;
  const stops = (): boolean => deps.shouldStop() || deps.shouldLeave?.() === true;
  for (let steps = 0; ; steps++) {
    if (stops()) return yield { type: 'turn_end', reason: 'stopped' };
    if (steps >= (deps.maxSteps ?? DEFAULT_MAX_STEPS)) return yield { type: 'turn_end', reason: 'step_limit' };
    if (!extending) await deps.absorbInput?.(messages);
    if (deps.overBudget(messages)) return yield { type: 'turn_end', reason: 'budget' };
    let response: ModelResponse;
    const system = typeof deps.system === 'string' ? deps.system : deps.system();
    try {
      await deps.tools.settled(deps.ctx.signal);
      if (stops()) return yield { type: 'turn_end', reason: 'stopped' };
      const compaction = await deps.compactor.compact(messages, system, deps.tools.apiTools(), windowFull, statedWindow);
      windowFull = false;
      statedWindow = undefined;
      for (const usage of compaction.usage) yield { type: 'usage', usage };
      if (compaction.how !== 'none') yield { type: 'compacted', how: compaction.how };
      response = await deps.model.create({ system, messages, tools: deps.tools.apiTools(), maxTokens }, deps.ctx.signal);
    } catch (error) {
      // A call cut short by a stop is not a failure: the work resumes after the restart.
      if (stops() || failureClass(error) === 'aborted') return yield { type: 'turn_end', reason: 'stopped' };
      if (failureClass(error) !== 'prompt_too_long' || tooLong >= 2) return yield { type: 'error', error };
      // Too long: summarize first; still too long (or the summary itself was): start over from identity, task and summary.
      tooLong++;
      if (tooLong === 1) {
        windowFull = true;
        statedWindow = statedWindowOf(error, estimateTokens(messages, system));
      } else yield { type: 'compacted', how: deps.compactor.rebuild(messages) };
      continue;
    }
    tooLong = 0;
    yield { type: 'usage', usage: response.usage };
    const said = response.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
    if (response.stopReason === 'refusal') return yield { type: 'turn_end', reason: 'refusal', text: said.join('\n').trim() };
    const content = storable(response.content, response.stopReason === 'pause_turn');
    // The conversation never holds an empty or whitespace-only block, nor a made-up assistant turn.
    if (extending && messages.at(-1)?.role === 'assistant') messages.at(-1)!.content.push(...content);
    else if (content.length > 0) messages.push({ role: 'assistant', content });
    extending = response.stopReason === 'pause_turn' && messages.at(-1)?.role === 'assistant';
    for (const text of said) if (text.trim()) yield { type: 'text', text };
    if (response.stopReason === 'pause_turn') {
      yield { type: 'step' };
      continue;
    }
    const uses = content.filter((block) => block.type === 'tool_use');
    windowFull = response.stopReason === 'model_context_window_exceeded';
    const cutOff = response.stopReason === 'max_tokens' || windowFull;
    if (cutOff && uses.length > 0) {
      // The last call's input was cut off: no call of this answer runs; the model makes them again with room to spare.
      maxTokens = Math.min(maxTokens * 2, deps.maxTokensCap ?? maxTokens * 2);
      messages.push({
        role: 'user',
        content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: continueDirective('tool'), is_error: true })),
      });
      yield { type: 'step' };
      continue;
    }
    if (uses.length === 0) {
      if (cutOff && continues < MAX_CONTINUES) {
        continues++;
        maxTokens = Math.min(maxTokens * 2, deps.maxTokensCap ?? maxTokens * 2);
        appendUser(messages, [{ type: 'text', text: continueDirective('text') }]);
        yield { type: 'step' };
        continue;
      }
      yield { type: 'step' };
      return yield { type: 'turn_end', reason: 'end_turn' };
    }
    continues = 0;
    const results: ContentBlock[] = [];
    let interrupted = false;
    let idle = false;
    // Calls of a concurrent tool (helpers) next to each other start together; every other call waits for the one before it.
    const started = new Map<string, Promise<ToolResult>>();
    for (const [i, use] of uses.entries()) {
      if (!started.has(use.id) && deps.shouldLeave?.()) {
        results.push({ type: 'tool_result', tool_use_id: use.id, content: NOT_RUN, is_error: true });
        continue;
      }
      if (!started.has(use.id) && deps.tools.concurrent(use.name))
        for (const next of uses.slice(i)) {
          if (!deps.tools.concurrent(next.name)) break;
          started.set(next.id, deps.tools.run(next.name, next.input, deps.ctx, next.id));
        }
      yield { type: 'tool_call', id: use.id, name: use.name, input: use.input };
      const result = await (started.get(use.id) ?? deps.tools.run(use.name, use.input, deps.ctx, use.id));
      if (result.effect?.kind === 'idle') idle = true;
      if (result.interrupted) interrupted = true;
      yield { type: 'tool_result', id: use.id, name: use.name, content: result.content, isError: result.isError === true, effect: result.effect };
      results.push({ type: 'tool_result', tool_use_id: use.id, content: result.content, ...(result.isError ? { is_error: true } : {}) });
    }
    // A stop cut a call short: its calls stay unanswered, as after a kill, and are made again at the next start.
    if (interrupted && deps.shouldStop()) return yield { type: 'turn_end', reason: 'stopped' };
    messages.push({ role: 'user', content: results });
    yield { type: 'step' };
    if (idle) return yield { type: 'turn_end', reason: 'idle' };
    if (stops()) return yield { type: 'turn_end', reason: 'stopped' };
  }
}

/** The blocks worth keeping: no empty or whitespace-only text; an answer to be continued never ends in whitespace. */
function storable(content: readonly ContentBlock[], continued: boolean): (ContentBlock & { type: 'text' | 'tool_use' })[] {
  const kept = content.filter(
    (b): b is ContentBlock & { type: 'text' | 'tool_use' } => b.type === 'tool_use' || (b.type === 'text' && b.text.trim().length > 0),
  );
  const last = kept.at(-1);
  if (continued && last?.type === 'text') kept[kept.length - 1] = { type: 'text', text: last.text.trimEnd() };
  return kept;
}

/**
 * The window an API error stated ("prompt is too long: N tokens > M maximum"), in the units of
 * teamd's own estimate of the same prompt (E): M x E / N, so a cut sized by it fits as the API counts.
 */
function statedWindowOf(error: unknown, estimate: number): number | undefined {
  const stated = error instanceof ModelError ? error.stated : undefined;
  if (!stated || stated.promptTokens <= 0) return undefined;
  return Math.floor((stated.maxTokens * estimate) / stated.promptTokens);
}
