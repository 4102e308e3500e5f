import { describe, expect, it } from 'vitest';
import { Compactor } from '../../src/agent/compactor.js';
import { isWellFormed } from '../../src/agent/conversation.js';
import { runAgent, type AgentEvent } from '../../src/agent/loop.js';
import { ModelError, type ChatMessage } from '../../src/model/model-client.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool, type ToolContext } from '../../src/tools/tool.js';
import { z } from 'zod';
import { FakeModel, reply, text, use } from '../helpers/fake-model.js';

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  input: z.object({ say: z.string() }),
  needsApprovedPlan: false,
  run: async (input) => ({ content: `echo: ${input.say}` }),
});
const idle = defineTool({
  name: 'idle',
  description: 'idle',
  input: z.object({}),
  needsApprovedPlan: false,
  run: async () => ({ content: 'going idle', effect: { kind: 'idle' as const } }),
});

const ctx = { signal: new AbortController().signal } as ToolContext;

async function run(model: FakeModel, messages: ChatMessage[], options: { threshold?: number; stop?: () => boolean; budget?: () => boolean } = {}) {
  const events: AgentEvent[] = [];
  const compactor = new Compactor({ model, thresholdTokens: options.threshold ?? 1_000_000, identity: () => '[teamd:identity]\nYou are alice.' });
  for await (const event of runAgent(messages, {
    model,
    tools: new ToolRegistry([echo, idle]),
    ctx,
    compactor,
    system: 'system',
    maxTokens: 100,
    shouldStop: options.stop ?? (() => false),
    overBudget: options.budget ?? (() => false),
  })) {
    events.push(event);
  }
  return events;
}

const start = (): ChatMessage[] => [{ role: 'user', content: [text('[teamd:task id=1]\ndo it')] }];

describe('runAgent', () => {
  it('runs the tools the model asks for until it stops calling tools, emitting events', async () => {
    const model = new FakeModel([reply([text('on it'), use('t1', 'echo', { say: 'hi' })]), reply([text('done')])]);
    const messages = start();
    const events = await run(model, messages);
    expect(events.map((e) => e.type)).toEqual(['usage', 'text', 'tool_call', 'tool_result', 'step', 'usage', 'text', 'step', 'turn_end']);
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ content: 'echo: hi', isError: false });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(isWellFormed(messages)).toBe(true);
  });

  it('returns invalid tool input and unknown tools to the model as error results, not exceptions', async () => {
    const model = new FakeModel([reply([use('t1', 'echo', { say: 3 }), use('t2', 'nope', {})]), reply([text('ok')])]);
    const events = await run(model, start());
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results).toMatchObject([
      { isError: true, content: expect.stringContaining('invalid input for echo: say') },
      { isError: true, content: expect.stringContaining('unknown tool "nope"') },
    ]);
  });

  it('ends the unit of work when the model calls idle', async () => {
    const events = await run(new FakeModel([reply([use('t1', 'idle', {})])]), start());
    expect(events.at(-1)).toEqual({ type: 'turn_end', reason: 'idle' });
  });

  it('asks the model to continue after stop_reason max_tokens', async () => {
    const model = new FakeModel([reply([text('partial')], 'max_tokens'), reply([text('rest')])]);
    const messages = start();
    await run(model, messages);
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain('[teamd:continue]');
    expect(messages.at(-1)?.role).toBe('assistant');
  });

  it('on prompt too long, compacts (summary by the model) and retries once', async () => {
    const tooLong = new ModelError('prompt_too_long', '400 prompt is too long: 300000 tokens > 200000 maximum');
    const model = new FakeModel([reply([use('t1', 'echo', { say: 'a' })]), tooLong, reply([text('summary: echoed a')]), reply([text('finished')])]);
    const messages: ChatMessage[] = [
      { role: 'user', content: [text('[teamd:task id=1]\nfirst')] },
      { role: 'assistant', content: [text('ok')] },
      { role: 'user', content: [text('[teamd:message from=lead type=message]\nmore')] },
    ];
    const events = await run(model, messages);
    expect(events).toContainEqual({ type: 'compacted', how: 'summarized' });
    expect(events.at(-1)).toEqual({ type: 'turn_end', reason: 'end_turn' });
    expect(messages[0]!.role).toBe('user');
    expect(JSON.stringify(messages[0])).toContain('[teamd:identity]');
    expect(JSON.stringify(messages[0])).toContain('summary: echoed a');
    expect(isWellFormed(messages)).toBe(true);
  });

  it('surfaces any other model error as an error event', async () => {
    const events = await run(new FakeModel([new Error('boom')]), start());
    expect(events.at(-1)).toMatchObject({ type: 'error', error: expect.objectContaining({ message: 'boom' }) });
  });

  it('stops before calling the model when asked, or when over budget', async () => {
    expect((await run(new FakeModel([]), start(), { stop: () => true })).at(-1)).toEqual({ type: 'turn_end', reason: 'stopped' });
    expect((await run(new FakeModel([]), start(), { budget: () => true })).at(-1)).toEqual({ type: 'turn_end', reason: 'budget' });
  });

  it('never stores an empty assistant turn', async () => {
    const messages = start();
    await run(new FakeModel([reply([])]), messages);
    expect(messages).toHaveLength(1);
  });
});

describe('Compactor', () => {
  it('shrinks old tool results first and never splits a tool_use from its result', async () => {
    const big = 'x'.repeat(4000);
    const messages: ChatMessage[] = [{ role: 'user', content: [text('[teamd:task id=1]\nwork')] }];
    for (let i = 0; i < 10; i++) {
      messages.push({ role: 'assistant', content: [use(`t${i}`, 'echo', { say: 'x' })] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: big }] });
    }
    const compactor = new Compactor({ model: new FakeModel([]), thresholdTokens: 8_000, keepRecentResults: 2, identity: () => 'id' });
    expect(await compactor.maybeCompact(messages, '')).toBe('trimmed');
    const contents = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => (b as { content: string }).content));
    expect(contents.slice(-2)).toEqual([big, big]);
    expect(contents.slice(0, -2).every((c) => c.startsWith('[output trimmed'))).toBe(true);
    expect(isWellFormed(messages)).toBe(true);
  });
});
