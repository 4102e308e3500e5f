import type { ChatMessage, ModelClient } from '../model/model-client.js';
import type { ApiTool } from '../tools/registry.js';
import { SUMMARIZE_MARKER } from '../model/offline/policy.js';
import { appendUser, estimateTokens, lastSafeCut } from './conversation.js';

export interface CompactorOptions {
  readonly model: ModelClient;
  /** Past this estimate the history is compacted before the next call. */
  readonly thresholdTokens: number;
  /** Tool results this recent are never shrunk. */
  readonly keepRecentResults?: number;
  /** Who the teammate is and what it works on: re-injected after every compaction. */
  readonly identity: () => string;
}

const TRIMMED = '[output trimmed to save context]';

/**
 * Keeps a conversation under a token threshold: first old tool results are shrunk, then, if
 * that is not enough, everything before the last safe cut is replaced by a model-written
 * summary. tool_use/tool_result pairs are never split; the result starts with a user turn.
 */
export class Compactor {
  constructor(private readonly options: CompactorOptions) {}

  /** `tools`: the request's tools, which the API requires whenever the history holds tool blocks. */
  async maybeCompact(messages: ChatMessage[], system: string, force = false, tools: readonly ApiTool[] = []): Promise<'none' | 'trimmed' | 'summarized'> {
    if (!force && estimateTokens(messages, system) <= this.options.thresholdTokens) return 'none';
    this.trimOldResults(messages);
    if (!force && estimateTokens(messages, system) <= this.options.thresholdTokens) return 'trimmed';
    const cut = lastSafeCut(messages);
    if (cut === 0) return 'trimmed';
    const older = structuredClone(messages.slice(0, cut));
    appendUser(older, [{ type: 'text', text: 'Summarize the conversation above. Answer with text only; do not call tools.' }]);
    const response = await this.options.model.create({
      system: `${SUMMARIZE_MARKER} Summarize this teammate's conversation so far for itself: decisions, files touched, task ids and their state, open questions. Be brief.`,
      messages: older,
      tools,
      maxTokens: 2048,
    });
    const summary = response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n') || '(no summary)';
    const tail = messages.slice(cut);
    const head: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: this.options.identity() },
        { type: 'text', text: `[teamd:summary]\nEarlier conversation, summarized:\n${summary}` },
        ...tail[0]!.content,
      ],
    };
    messages.splice(0, messages.length, head, ...tail.slice(1));
    return 'summarized';
  }

  private trimOldResults(messages: ChatMessage[]): void {
    const keep = this.options.keepRecentResults ?? 6;
    const results = messages.flatMap((message) => message.content.filter((block) => block.type === 'tool_result'));
    for (const block of results.slice(0, Math.max(0, results.length - keep))) {
      if (block.type !== 'tool_result') continue;
      // The output is shrunk; messages riding along in the result are kept.
      if (typeof block.content === 'string') {
        if (block.content.length > TRIMMED.length) block.content = TRIMMED;
      } else if (block.content[0] && block.content[0].text.length > TRIMMED.length) block.content[0] = { type: 'text', text: TRIMMED };
    }
  }
}
