import type { ChatMessage, ModelClient } from '../model/model-client.js';
import { SUMMARIZE_MARKER } from '../model/offline/policy.js';
import { estimateTokens, lastSafeCut } from './conversation.js';

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

  async maybeCompact(messages: ChatMessage[], system: string, force = false): Promise<'none' | 'trimmed' | 'summarized'> {
    if (!force && estimateTokens(messages, system) <= this.options.thresholdTokens) return 'none';
    this.trimOldResults(messages);
    if (!force && estimateTokens(messages, system) <= this.options.thresholdTokens) return 'trimmed';
    const cut = lastSafeCut(messages);
    if (cut === 0) return 'trimmed';
    const older = messages.slice(0, cut);
    const response = await this.options.model.create({
      system: `${SUMMARIZE_MARKER} Summarize this teammate's conversation so far for itself: decisions, files touched, task ids and their state, open questions. Be brief.`,
      messages: [...older, { role: 'user', content: [{ type: 'text', text: 'Summarize the conversation above.' }] }],
      tools: [],
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
      if (block.type === 'tool_result' && block.content.length > TRIMMED.length) block.content = TRIMMED;
    }
  }
}
