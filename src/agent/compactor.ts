import type { ChatMessage, ModelClient, Usage, ApiTool } from '../contracts/model.js';
import { appendUser, estimateTokens, resultText } from './conversation.js';
import { parseDirective, summarizeDirective, summaryDirective } from '../contracts/directives.js';

export interface CompactorOptions {
  readonly model: ModelClient;
  /** Past this estimate the history is compacted before the next call. */
  readonly thresholdTokens: number;
  /** Who the teammate is and the task it works on: re-injected after every summary or rebuild. */
  readonly context: () => string[];
  /** A tool result longer than this is shrunk to its head and tail first (default 2 000 characters). */
  readonly shrinkChars?: number;
  /** Told before older messages are summarized away (PreCompact hooks). */
  readonly beforeSummary?: () => Promise<void>;
}

export type CompactionHow = 'none' | 'trimmed' | 'summarized' | 'rebuilt';

export interface Compaction {
  readonly how: CompactionHow;
  /** What the summary call cost: it counts like any call. */
  readonly usage: Usage[];
}

const PREVIEW_CHARS = 600;
/** A compaction aims for this share of the threshold. */
const LOW_WATER = 0.5;

/**
 * Keeps a conversation under a token threshold, always leaving a valid one: first the largest
 * tool results are shrunk (by size, recent ones too); then everything before a cut is replaced
 * by a model-written summary — the cut may fall inside a task, between whole tool_use /
 * tool_result pairs; the teammate's identity and current task come back right after the
 * summary. `rebuild` starts over from the identity, the task and the latest summary.
 */
export class Compactor {
  constructor(private readonly options: CompactorOptions) {}

  /**
   * `window`: the size the API said the prompt must fit in, in this estimate's units (after a
   * "prompt is too long: N tokens > M maximum"): the cut is sized by it when it is the smaller.
   */
  async compact(messages: ChatMessage[], system: string, tools: readonly ApiTool[], force = false, window?: number): Promise<Compaction> {
    const limit = Math.min(this.options.thresholdTokens, window ?? Number.POSITIVE_INFINITY);
    if (!force && estimateTokens(messages, system) <= limit) return { how: 'none', usage: [] };
    // Down to well under the threshold, not just under it: every compaction changes the cached prefix, so it must not come every call.
    const low = Math.floor(limit * LOW_WATER);
    shrinkResults(messages, this.options.shrinkChars ?? 2_000, () => estimateTokens(messages, system) <= low);
    if (!force && estimateTokens(messages, system) <= limit) return { how: 'trimmed', usage: [] };
    const cut = chooseCut(messages, Math.floor(limit * LOW_WATER));
    if (cut === null) return { how: this.rebuild(messages), usage: [] };
    await this.options.beforeSummary?.();
    const older = fitFromEnd(structuredClone(messages.slice(0, cut)), system, limit);
    appendUser(older, [{ type: 'text', text: summarizeDirective() }]);
    // The same system and tools as every turn: the request is valid, and it reads the cached prefix.
    const response = await this.options.model.create({ system, messages: older, tools, maxTokens: 2048 });
    const summary = response.content.flatMap((b) => (b.type === 'text' && b.text.trim() ? [b.text] : [])).join('\n') || '(no summary)';
    const head = [...this.options.context(), summaryDirective(summary)].map((text) => ({ type: 'text' as const, text }));
    const tail = messages.slice(cut);
    const first = tail[0]!;
    const rebuilt: ChatMessage[] =
      first.role === 'user' ? [{ role: 'user', content: [...head, ...first.content] }, ...tail.slice(1)] : [{ role: 'user', content: head }, ...tail];
    messages.splice(0, messages.length, ...rebuilt);
    return { how: 'summarized', usage: [response.usage] };
  }

  /** Starts the conversation over from the identity, the current task and the latest summary. */
  rebuild(messages: ChatMessage[]): 'rebuilt' {
    const summary = latestSummary(messages);
    const texts = [...this.options.context(), ...(summary ? [summary] : [])];
    messages.splice(0, messages.length, { role: 'user', content: texts.map((text) => ({ type: 'text', text })) });
    return 'rebuilt';
  }
}

/** Shrinks the longest tool results first, oldest first among equals, until `enough`. */
function shrinkResults(messages: ChatMessage[], over: number, enough: () => boolean): void {
  const results = messages.flatMap((message) => message.content.filter((block) => block.type === 'tool_result'));
  const large = results.filter((block) => firstText(block.content).length > over).sort((a, b) => firstText(b.content).length - firstText(a.content).length);
  for (const block of large) {
    if (enough()) return;
    const text = firstText(block.content);
    const preview = `${text.slice(0, PREVIEW_CHARS)}\n[… ${text.length - 2 * PREVIEW_CHARS} characters shrunk to save context …]\n${text.slice(-PREVIEW_CHARS)}`;
    // Messages riding along in the result are kept.
    if (typeof block.content === 'string') block.content = preview;
    else block.content[0] = { type: 'text', text: preview };
  }
}

function firstText(content: string | readonly { text: string }[]): string {
  return typeof content === 'string' ? content : (content[0]?.text ?? '');
}

/**
 * Where to cut: a message the kept part can start with — an assistant turn (the summary then
 * opens the conversation) or a user turn without tool results — as early as keeps the rest
 * under `keepTokens`, else the latest such place. Null when there is none.
 */
function chooseCut(messages: readonly ChatMessage[], keepTokens: number): number | null {
  const places: number[] = [];
  for (let i = 1; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant' || !message.content.some((b) => b.type === 'tool_result')) places.push(i);
  }
  if (places.length === 0) return null;
  return places.find((i) => estimateTokens(messages.slice(i)) <= keepTokens) ?? places.at(-1)!;
}

/** The latest part of `older` that a summary request can hold, starting where a conversation may start. */
function fitFromEnd(older: ChatMessage[], system: string, limit: number): ChatMessage[] {
  shrinkResults(older, PREVIEW_CHARS * 2, () => false);
  if (estimateTokens(older, system) <= limit) return older;
  for (let i = 1; i < older.length; i++) {
    const part = older.slice(i);
    if (estimateTokens(part, system) > limit) continue;
    if (part[0]!.role === 'user' && !part[0]!.content.some((b) => b.type === 'tool_result')) return part;
    if (part[0]!.role === 'assistant') return [{ role: 'user', content: [{ type: 'text', text: '(older turns left out)' }] }, ...part];
  }
  return [{ role: 'user', content: [{ type: 'text', text: '(the earlier conversation was too long to summarize)' }] }];
}

function latestSummary(messages: readonly ChatMessage[]): string | null {
  for (const message of [...messages].reverse()) {
    for (const block of message.content) {
      const text = block.type === 'text' ? block.text : block.type === 'tool_result' ? resultText(block.content) : '';
      if (parseDirective(text)?.kind === 'summary') return text;
    }
  }
  return null;
}
