import type { ChatMessage, ContentBlock, TextBlock } from '../model/model-client.js';

/**
 * Appends user content, merging into a trailing user message so roles keep alternating. Text
 * never follows tool results in one user turn (real models then answer with an empty turn): it
 * rides inside the last tool result instead.
 */
export function appendUser(messages: ChatMessage[], blocks: ContentBlock[]): void {
  const last = messages.at(-1);
  if (last?.role !== 'user') {
    messages.push({ role: 'user', content: blocks });
    return;
  }
  const lastResult = last.content.findLast((block) => block.type === 'tool_result');
  for (const block of blocks) {
    if (block.type === 'text' && lastResult?.type === 'tool_result') {
      if (typeof lastResult.content === 'string') lastResult.content = [{ type: 'text', text: lastResult.content || '(no output)' }];
      lastResult.content.push(block);
    } else last.content.push(block);
  }
}

/** A tool result's text, whether stored as a string or as text blocks. */
export function resultText(content: string | readonly TextBlock[]): string {
  return typeof content === 'string' ? content : content.map((block) => block.text).join('\n');
}

export function estimateTokens(messages: readonly ChatMessage[], system = ''): number {
  return Math.ceil((JSON.stringify(messages).length + system.length) / 4);
}

/**
 * Index of the last message where the conversation can be cut without splitting a
 * tool_use from its tool_result: a user message that carries no tool results.
 */
export function lastSafeCut(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i > 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user' && !message.content.some((block) => block.type === 'tool_result')) return i;
  }
  return 0;
}

/** Every tool_use is answered by a tool_result in the next message, and roles alternate from a user turn. */
export function isWellFormed(messages: readonly ChatMessage[]): boolean {
  if (messages.length > 0 && messages[0]!.role !== 'user') return false;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (i > 0 && messages[i - 1]!.role === message.role) return false;
    const uses = message.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
    if (uses.length === 0) continue;
    const answers = new Set((messages[i + 1]?.content ?? []).filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id));
    if (i + 1 < messages.length && !uses.every((id) => answers.has(id))) return false;
  }
  return true;
}
