import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { Mailbox } from '../../src/store/files/mailbox.js';
import { openMailStore, openTaskBoard } from '../helpers/board.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { leadPowers } from '../../src/teammate/lead-powers.js';
import { writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A team folder where alice has asked the lead for a plan approval and for a permission. */
async function withRequests(leadAnswers?: { plans?: boolean; permissions?: boolean }) {
  const root = path.join(makeTempDir('teamd-ws-'), '.team');
  const paths = writeRoster(root, ['alice', 'bob']);
  if (leadAnswers) {
    const config = JSON.parse(fs.readFileSync(paths.config, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(paths.config, JSON.stringify({ ...config, settings: { leadAnswers } }));
  }
  const mailbox = new Mailbox({ paths, logger: createLogger() });
  // The plan is for the claim alice holds.
  const { board } = openTaskBoard(root);
  await board.add({ subject: 'careful', description: 'x' });
  const task = await board.claim(1, 'alice');
  const plan = mailbox.send({ from: 'alice', to: 'lead', type: 'plan_approval_request', content: 'my plan', extra: { taskId: 1, claim: task.claim } });
  const permission = mailbox.send({ from: 'alice', to: 'lead', type: 'permission_request', content: 'may I', extra: { tool: 'bash', input: {} } });
  const answers = () => readInboxFrom(paths.inboxFile('alice'), 0).messages.map((m) => m.message);
  return {
    paths,
    board,
    powers: leadPowers({ paths, mailbox: openMailStore(paths), board, scanFile: paths.requestScan }),
    plan: plan.requestId!,
    permission: permission.requestId!,
    answers,
  };
}

describe("the lead agent's powers", () => {
  it('answers a plan request, signed as the lead; a second answer is refused', async () => {
    const { powers, plan, answers } = await withRequests();
    expect(await powers.answer(plan, true, 'good plan', 'plan')).toBe(`approved alice's plan request ${plan.slice(0, 8)} for task 1`);
    expect(answers()).toEqual([
      expect.objectContaining({ type: 'plan_approval_response', from: 'lead', approve: true, content: 'good plan', sig: expect.any(String) }),
    ]);
    await expect(powers.answer(plan, false, 'changed my mind', 'plan')).rejects.toThrow(/was already approved/);
  });

  it('refuses a plan whose claim is over (the task released and claimed again), sending nothing (issue 47)', async () => {
    const { board, powers, plan, answers } = await withRequests();
    await board.release(1);
    await board.claim(1, 'alice');
    await expect(powers.answer(plan, true, 'ok', 'plan')).rejects.toThrow(
      /alice's plan request \w{8} was for claim 1 of task 1, which alice now holds as claim 2: the request is closed; nothing was sent/,
    );
    await board.complete(1, { owner: 'alice', claim: 2 });
    await expect(powers.answer(plan, true, 'ok', 'plan')).rejects.toThrow(/was for claim 1 of task 1, which is completed now/);
    expect(answers()).toEqual([]);
  });

  it('request_plan asks the teammate in its inbox (planFor), and refuses an unknown name, a task another holds, a finished one (issue 47)', async () => {
    const { board, powers, paths } = await withRequests();
    expect(await powers.requestPlan('alice', 1, '')).toMatch(/^asked alice for a plan for task 1/);
    const asked = readInboxFrom(paths.inboxFile('alice'), 0)
      .messages.map((m) => m.message)
      .at(-1);
    expect(asked).toMatchObject({
      from: 'lead',
      to: 'alice',
      planFor: 1,
      taskId: 1,
      content: 'Before you change anything for task 1 (careful), send me your plan.',
    });
    await expect(powers.requestPlan('nobody', 1, '')).rejects.toThrow(/no teammate named nobody/);
    await expect(powers.requestPlan('bob', 1, '')).rejects.toThrow(/task 1 is alice's: ask alice for the plan instead/);
    await expect(powers.requestPlan('alice', 9, '')).rejects.toThrow(/task 9/);
    await board.complete(1, { owner: 'alice', claim: 1 });
    await expect(powers.requestPlan('alice', 1, '')).rejects.toThrow(/task 1 is completed: there is nothing left to plan/);
  });

  it('leaves permission requests to the person unless leadAnswers.permissions says otherwise; plans too when leadAnswers.plans is false', async () => {
    const byDefault = await withRequests();
    await expect(byDefault.powers.answer(byDefault.permission, true, '', 'permission')).rejects.toThrow(
      `permission requests are answered by the person (teamd approve|reject ${byDefault.permission.slice(0, 8)})`,
    );
    expect(byDefault.answers()).toEqual([]);
    const widened = await withRequests({ permissions: true, plans: false });
    expect(await widened.powers.answer(widened.permission, false, 'not now', 'permission')).toMatch(/^rejected alice's permission request/);
    await expect(widened.powers.answer(widened.plan, true, '', 'plan')).rejects.toThrow(/plan requests are answered by the person/);
    // Each kind with its own tool.
    await expect(widened.powers.answer(widened.permission, true, '', 'plan')).rejects.toThrow('is a permission request: answer it with answer_permission');
  });

  it('reports to the person in user.jsonl, marking the final report', async () => {
    const { paths, powers } = await withRequests();
    await powers.report('halfway', false);
    await powers.report('done: 3 tasks completed', true);
    const told = readInboxFrom(paths.inboxFile('user'), 0).messages.map((m) => m.message);
    expect(told).toEqual([
      expect.objectContaining({ from: 'lead', to: 'user', content: 'halfway', report: 'progress' }),
      expect.objectContaining({ from: 'lead', to: 'user', content: 'done: 3 tasks completed', report: 'final' }),
    ]);
  });
});
