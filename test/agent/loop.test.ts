import { describe, expect, it } from 'vitest';
import { Compactor } from '../../src/agent/compactor.js';
import { appendUser, isWellFormed } from '../../src/agent/conversation.js';
import { runAgent, type AgentEvent } from '../../src/agent/loop.js';
import { ModelError } from '../../src/model/model-client.js';
import { type ChatMessage } from '../../src/contracts/model.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool, type ToolContext } from '../../src/contracts/tool.js';
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

async function run(
  model: FakeModel,
  messages: ChatMessage[],
  options: { threshold?: number; stop?: () => boolean; budget?: () => boolean; absorb?: (messages: ChatMessage[]) => void } = {},
) {
  const events: AgentEvent[] = [];
  const compactor = new Compactor({ model, thresholdTokens: options.threshold ?? 1_000_000, context: () => ['[teamd:identity]\nYou are alice.'] });
  for await (const event of runAgent(messages, {
    model,
    tools: new ToolRegistry([echo, idle]),
    ctx,
    compactor,
    system: 'system',
    maxTokens: 100,
    shouldStop: options.stop ?? (() => false),
    overBudget: options.budget ?? (() => false),
    ...(options.absorb ? { absorbInput: options.absorb } : {}),
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

describe('runAgent and stop reasons', () => {
  it('pause_turn: calls again with the paused turn last, and the answer extends that same assistant turn', async () => {
    const model = new FakeModel([reply([text('Let me look  ')], 'pause_turn'), reply([use('t1', 'echo', { say: 'hi' })]), reply([text('done')])]);
    const messages = start();
    await run(model, messages);
    expect(model.requests[1]!.messages.at(-1)).toEqual({ role: 'assistant', content: [text('Let me look')] });
    expect(messages[1]).toMatchObject({ role: 'assistant', content: [text('Let me look'), { type: 'tool_use', id: 't1' }] });
    expect(isWellFormed(messages)).toBe(true);
  });

  it('refusal: ends the unit with the refusal text and stores nothing of the refused turn', async () => {
    const messages = start();
    const events = await run(new FakeModel([reply([text('I cannot help with that.')], 'refusal')]), messages);
    expect(events.at(-1)).toEqual({ type: 'turn_end', reason: 'refusal', text: 'I cannot help with that.' });
    expect(messages).toHaveLength(1);
  });

  it('max_tokens inside a tool call: the call is not run, it is answered as not run, and the output limit doubles', async () => {
    const model = new FakeModel([reply([use('t1', 'echo', { say: 'cut' })], 'max_tokens'), reply([text('ok')])]);
    const messages = start();
    const events = await run(model, messages);
    expect(events.some((e) => e.type === 'tool_call')).toBe(false);
    expect(messages[2]).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true }] });
    expect(JSON.stringify(messages[2])).toContain('not run');
    expect(model.requests[1]!.maxTokens).toBe(200);
  });

  it('never stores empty or whitespace-only text blocks, nor an answer that had only those', async () => {
    const messages = start();
    await run(new FakeModel([reply([text('  \n'), use('t1', 'echo', { say: 'x' })]), reply([text(' ')])]), messages);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content).toEqual([{ type: 'tool_use', id: 't1', name: 'echo', input: { say: 'x' } }]);
  });

  it('puts what arrived meanwhile into the conversation before each model call, inside the last tool result', async () => {
    const model = new FakeModel([reply([use('t1', 'echo', { say: 'a' })]), reply([text('done')])]);
    let calls = 0;
    const absorb = (messages: ChatMessage[]) => {
      if (++calls === 2) appendUser(messages, [text('[teamd:message from=bob type=message]\nhi')]);
    };
    await run(model, start(), { absorb });
    const last = model.requests[1]!.messages.at(-1)!;
    expect(last.content).toHaveLength(1);
    expect(last.content[0]).toMatchObject({ type: 'tool_result', content: [text('echo: a'), text('[teamd:message from=bob type=message]\nhi')] });
  });

  it('a call cancelled by a stop ends the unit as stopped, not as an error', async () => {
    let stopping = false;
    const model = new FakeModel([
      () => {
        stopping = true;
        throw new ModelError('aborted', 'the model call was cancelled');
      },
    ]);
    const events = await run(model, start(), { stop: () => stopping });
    expect(events.at(-1)).toEqual({ type: 'turn_end', reason: 'stopped' });
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });

  it('model_context_window_exceeded: compacts before the next call, then asks the model to continue', async () => {
    const big = 'x'.repeat(4_000);
    const model = new FakeModel([reply([text('partial')], 'model_context_window_exceeded'), reply([text('summary')]), reply([text('rest')])]);
    const messages: ChatMessage[] = [
      { role: 'user', content: [text(`[teamd:task id=1]\n${big}`)] },
      { role: 'assistant', content: [text('ok')] },
      { role: 'user', content: [text('go on')] },
    ];
    const events = await run(model, messages);
    expect(events.filter((e) => e.type === 'compacted')).toEqual([{ type: 'compacted', how: 'summarized' }]);
    expect(JSON.stringify(model.requests[2]!.messages)).toContain('[teamd:continue]');
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain(big);
  });
});
