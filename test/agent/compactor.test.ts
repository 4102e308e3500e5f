import { describe, expect, it } from 'vitest';
import { Compactor } from '../../src/agent/compactor.js';
import { isWellFormed } from '../../src/agent/conversation.js';
import type { ChatMessage, ApiTool } from '../../src/contracts/model.js';
import { findViolation } from '../../src/model/offline/request-rules.js';
import { servedModel } from '../../src/model/model-catalog.js';
import { FakeModel, reply, text, use } from '../helpers/fake-model.js';

const tools: ApiTool[] = [{ name: 'echo', description: 'echo', input_schema: { type: 'object', properties: {} } }];
const context = () => ['[teamd:identity]\nYou are alice.', '[teamd:resume task=1]\nYou still own task 1: work'];

/** One task whose tool results fill the conversation: no user turn without results after the first. */
function oneLongTask(calls: number, output: string): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: [text('[teamd:task id=1]\nwork')] }];
  for (let i = 0; i < calls; i++) {
    messages.push({ role: 'assistant', content: [use(`t${i}`, 'echo', { say: 'x' })] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: output }] });
  }
  return messages;
}

describe('Compactor', () => {
  it('shrinks the largest tool results first, recent ones too, until the conversation fits', async () => {
    const messages = oneLongTask(10, 'x'.repeat(4000));
    const compactor = new Compactor({ model: new FakeModel([]), thresholdTokens: 4_000, context });
    expect((await compactor.compact(messages, '', tools)).how).toBe('trimmed');
    const results = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => (b as { content: string }).content));
    expect(results.every((c) => c.length < 1500)).toBe(true);
    expect(isWellFormed(messages)).toBe(true);
  });

  it('cuts inside one task when it must: the summary request is valid for the API, and identity and task come right after the summary', async () => {
    const model = new FakeModel([reply([text('Progress: task 1, 16 calls done.')])]);
    const messages = oneLongTask(20, 'y'.repeat(1100));
    const compactor = new Compactor({ model, thresholdTokens: 3_000, context });
    const done = await compactor.compact(messages, 'the system prompt', tools);
    expect(done.how).toBe('summarized');
    expect(done.usage).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.system).toBe('the system prompt');
    expect(request.tools).toEqual(tools);
    expect(JSON.stringify(request.messages.at(-1))).toContain('[teamd:summarize]');
    const raw = {
      model: 'offline',
      max_tokens: request.maxTokens,
      system: request.system,
      tools: request.tools.map((t) => ({ ...t })),
      messages: request.messages as never,
    };
    expect(findViolation(raw, { model: servedModel('offline', new Date()), contextWindowTokens: 200_000 })).toBeNull();
    expect(isWellFormed(messages)).toBe(true);
    expect(messages[0]!.content.map((b) => (b as { text: string }).text.split('\n')[0])).toEqual([
      '[teamd:identity]',
      '[teamd:resume task=1]',
      '[teamd:summary]',
    ]);
    expect(messages[1]!.role).toBe('assistant');
  });

  it('rebuilds from the identity, the task and the latest summary', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: [text('[teamd:summary]\nEarlier conversation, summarized:\nS')] },
      { role: 'assistant', content: [text('x')] },
    ];
    new Compactor({ model: new FakeModel([]), thresholdTokens: 10, context }).rebuild(messages);
    expect(messages).toEqual([
      {
        role: 'user',
        content: context()
          .map(text)
          .concat([text('[teamd:summary]\nEarlier conversation, summarized:\nS')]),
      },
    ]);
  });
});
