import type { ChatMessage, ContentBlock, TextBlock } from '../contracts/model.js';
import { parseDirective } from '../contracts/directives.js';

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

/** What `repairConversation` changed, for the log. */
export interface Repairs {
  readonly droppedBlocks: number;
  readonly answeredCalls: number;
  readonly droppedResults: number;
}

const INTERRUPTED = '[teamd:interrupted]\nThis call was not run (the teammate stopped before it ran). Make it again if it is still needed.';

/**
 * Makes a saved conversation one the API accepts, whatever wrote it: no empty or
 * whitespace-only text, every tool_use answered at the start of the next message (a call left
 * without its result is answered as not run), no tool_result that answers nothing, no empty
 * message. The conversation is changed in place.
 */
export function repairConversation(messages: ChatMessage[]): Repairs {
  let droppedBlocks = 0;
  let answeredCalls = 0;
  let droppedResults = 0;
  // The API wants a user message first.
  while (messages[0]?.role === 'assistant') messages.shift();
  for (const message of messages) {
    const before = message.content.length;
    message.content = message.content.filter((b) => b.type !== 'text' || b.text.trim().length > 0);
    droppedBlocks += before - message.content.length;
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'user') {
      const previous = messages[i - 1];
      const asked = new Set(previous?.role === 'assistant' ? previous.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []);
      const before = message.content.length;
      message.content = message.content.filter((b) => b.type !== 'tool_result' || asked.has(b.tool_use_id));
      droppedResults += before - message.content.length;
      continue;
    }
    const ids = message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    if (ids.length === 0) continue;
    let next = messages[i + 1];
    if (next?.role !== 'user') {
      next = { role: 'user', content: [] };
      messages.splice(i + 1, 0, next);
    }
    const answered = new Set(next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
    const missing = ids.filter((id) => !answered.has(id));
    answeredCalls += missing.length;
    const results = next.content.filter((b) => b.type === 'tool_result');
    const rest = next.content.filter((b) => b.type !== 'tool_result');
    next.content = [...results, ...missing.map((id): ContentBlock => ({ type: 'tool_result', tool_use_id: id, content: INTERRUPTED, is_error: true }))];
    // Text after the results rides inside the last one (see appendUser).
    appendUser(messages.slice(0, i + 2), rest);
  }
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.content.length === 0) messages.splice(i, 1);
  // Neighbours of one role left by the removals become one message (user text folded as appendUser does).
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role !== message.role) merged.push(message);
    else if (message.role === 'user') appendUser(merged, message.content);
    else last.content.push(...message.content);
  }
  messages.splice(0, messages.length, ...merged);
  return { droppedBlocks, answeredCalls, droppedResults };
}

/**
 * Whether this conversation already worked on the task: a task or resume directive for it, as
 * its own text or riding in a tool result. A teammate that claims such a task again (handed back
 * while it crashed, or while the model API was out) resumes it instead of starting over.
 */
export function workedOn(messages: readonly ChatMessage[], taskId: number): boolean {
  const names = (text: string) => {
    const directive = parseDirective(text);
    return (directive?.kind === 'task' || directive?.kind === 'resume') && directive.id === taskId;
  };
  return messages.some(
    (message) =>
      message.role === 'user' &&
      message.content.some((block) =>
        block.type === 'text'
          ? names(block.text)
          : block.type === 'tool_result' && typeof block.content !== 'string' && block.content.some((b) => names(b.text)),
      ),
  );
}

/**
 * The conversation ends with inbox messages no model turn has answered: a stop (a kill, a full
 * disk) came between taking them in, which moved the inbox cursor past them, and the reply. Only
 * messages: a turn that ends in tool results belongs to a task, which is resumed as a task or not
 * at all (another teammate may hold it now).
 */
export function endsWithUnansweredMessages(messages: readonly ChatMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'user' || last.content.length === 0) return false;
  return last.content.every((block) => block.type === 'text' && parseDirective(block.text)?.kind === 'message');
}

/** What the model said last: the text of the last assistant message, or '' (for telling someone where it stopped). */
export function lastSaid(messages: readonly ChatMessage[]): string {
  const last = messages.findLast((message) => message.role === 'assistant');
  return (last?.content ?? [])
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim();
}
