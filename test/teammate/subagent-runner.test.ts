import { describe, expect, it } from 'vitest';
import { SubagentRunner } from '../../src/teammate/subagent.js';
import type { Usage } from '../../src/contracts/model.js';
import type { ToolContext } from '../../src/contracts/tool.js';
import { FakeModel, reply, text, use, usage } from '../helpers/fake-model.js';
import { toolContext } from '../helpers/tool-context.js';

const parent = (): ToolContext => toolContext();

describe('SubagentRunner (a scripted model)', () => {
  it("counts every call of the helper in the teammate's usage, and sends none of the teammate's conversation", async () => {
    const model = new FakeModel([reply([use('t1', 'glob', { pattern: '*' })]), reply([text('Found nothing of note.')])]);
    const counted: Usage[] = [];
    const runner = new SubagentRunner({
      name: 'alice',
      model,
      maxTokens: 1000,
      compactThresholdTokens: 100_000,
      gate: null,
      planApproved: () => true,
      onUsage: (u) => counted.push(u),
      overBudget: () => false,
      shouldStop: () => false,
    });
    const result = await runner.run({ description: 'look', prompt: 'look around' }, parent());
    expect(result).toEqual({ content: 'Found nothing of note.' });
    expect(counted).toEqual([usage, usage]);
    // Its first request holds only its own prompt; the teammate's tools are not offered.
    expect(model.requests[0]!.messages).toHaveLength(1);
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(['read_file', 'glob', 'grep', 'load_skill']);
  });

  it('stops at the budget before a call', async () => {
    const runner = new SubagentRunner({
      name: 'alice',
      model: new FakeModel([]),
      maxTokens: 1000,
      compactThresholdTokens: 100_000,
      gate: null,
      planApproved: () => true,
      onUsage: () => {},
      overBudget: () => true,
      shouldStop: () => false,
    });
    expect(await runner.run({ description: 'look', prompt: 'look around' }, parent())).toMatchObject({
      isError: true,
      content: expect.stringContaining('token budget'),
    });
  });
});
