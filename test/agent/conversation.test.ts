import { describe, expect, it } from 'vitest';
import { appendUser, endsWithUnansweredMessages, isWellFormed, repairConversation } from '../../src/agent/conversation.js';
import type { ChatMessage, TextBlock } from '../../src/contracts/model.js';
import { text, use } from '../helpers/fake-model.js';

const result = (id: string, content = 'ok') => ({ type: 'tool_result' as const, tool_use_id: id, content });

describe('appendUser', () => {
  it('starts a user turn after an assistant turn, and merges into a trailing user turn', () => {
    const messages: ChatMessage[] = [{ role: 'assistant', content: [text('hi')] }];
    appendUser(messages, [text('a')]);
    appendUser(messages, [text('b')]);
    expect(messages).toEqual([
      { role: 'assistant', content: [text('hi')] },
      { role: 'user', content: [text('a'), text('b')] },
    ]);
  });

  it('never puts text after tool results: it rides inside the last result', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: [result('t1'), result('t2', '')] }];
    appendUser(messages, [text('[teamd:message from=bob type=message]\nhi')]);
    expect(messages[0]!.content).toEqual([
      result('t1'),
      { type: 'tool_result', tool_use_id: 't2', content: [text('(no output)'), text('[teamd:message from=bob type=message]\nhi')] },
    ]);
  });
});

describe('repairConversation', () => {
  it('answers a call left without its result, drops blank text and results that answer nothing', () => {
    const messages: ChatMessage[] = [
      { role: 'assistant', content: [text('stray')] },
      { role: 'user', content: [text('do it'), text('   ')] },
      { role: 'assistant', content: [text(''), use('t1', 'bash', {}), use('t2', 'bash', {})] },
      { role: 'user', content: [result('t1'), result('zz')] },
      { role: 'assistant', content: [use('t3', 'bash', {})] },
    ];
    const repairs = repairConversation(messages);
    expect(repairs).toEqual({ droppedBlocks: 2, answeredCalls: 2, droppedResults: 1 });
    expect(isWellFormed(messages)).toBe(true);
    expect(messages[0]).toEqual({ role: 'user', content: [text('do it')] });
    expect(messages.at(-1)!.content).toMatchObject([{ type: 'tool_result', tool_use_id: 't3', is_error: true }]);
  });

  it('leaves a sound conversation as it is', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [use('t1', 'bash', {})] },
      { role: 'user', content: [result('t1')] },
      { role: 'assistant', content: [text('done')] },
    ];
    const copy = structuredClone(messages);
    expect(repairConversation(messages)).toEqual({ droppedBlocks: 0, answeredCalls: 0, droppedResults: 0 });
    expect(messages).toEqual(copy);
  });
});

describe('endsWithUnansweredMessages', () => {
  const message = (content: string): TextBlock => ({
    type: 'text',
    text: `[teamd:message from=lead type=message]\nMessage from lead:\n${content}`,
  });

  it('is true only for a conversation that ends in inbox messages alone: not an answer, a directive or tool results', () => {
    const asked: ChatMessage[] = [{ role: 'user', content: [message('hello'), message('again')] }];
    const answered: ChatMessage[] = [...asked, { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }];
    const directive: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: '[teamd:task id=3]\nDo it' }] }];
    const midTask: ChatMessage[] = [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }, message('hello')] }] },
    ];
    expect([asked, answered, directive, midTask, []].map(endsWithUnansweredMessages)).toEqual([true, false, false, false, false]);
  });
});
