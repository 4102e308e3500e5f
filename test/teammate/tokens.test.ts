import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { savedMessages } from '../helpers/session.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { apiStandIn } from '../helpers/api-stand-in.js';
import { firstRewrite } from '../../src/model/offline/prompt-cache.js';
import { waitFor } from '../helpers/wait.js';

const calls = (value: unknown) => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

function workspace() {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  return { ws, dir, ...openBoard(dir) };
}

describe('the token bill', () => {
  it('a scripted 20-call task reads at least 80 % of its input tokens from the prompt cache, and teamd status shows it', async () => {
    const { dir, board } = workspace();
    await board.add({
      subject: 'twenty calls',
      description: calls(Array.from({ length: 20 }, (_, i) => ({ name: 'bash', input: { command: `echo step ${i}` } }))),
    });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the task done');
    const usage = await waitFor(() => member(dir, 'alice')?.usage, 'usage in the roster');
    const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    expect(usage.cacheReadTokens / input).toBeGreaterThanOrEqual(0.8);
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.stdout).toMatch(/CACHE-READ\s+CACHE-WRITE\s+CACHED/);
    expect(status.stdout).toMatch(/alice .* \d+%/);
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).not.toContain('would refuse');
  });
});

describe('a cache that survives task switches (issue 47)', () => {
  it('ten tasks in a row: no request after the first rewrites a block before the last one its previous request cached', async () => {
    const { dir, board, env, requests } = await apiStandIn();
    for (let n = 1; n <= 10; n++) await board.add({ subject: `t${n}`, description: `\`\`\`sh\necho ${n}\n\`\`\`` });
    await startDaemon(dir, { env });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--model', 'claude-sonnet-5-5', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.list().tasks.every((t) => t.status === 'completed'), 'the ten tasks');
    const own = requests.filter((r) => r.teammate === 'alice').map((r) => r.request);
    // Each task takes at least two calls (a command, then complete_task): every switch is in here.
    expect(own.length).toBeGreaterThanOrEqual(20);
    const rewrites = own.slice(1).flatMap((request, i) => {
      const at = firstRewrite(own[i]!, request);
      return at === null ? [] : [`request ${i + 2} rewrites block ${at}`];
    });
    expect(rewrites).toEqual([]);
    // The earlier tasks' directives are still whole; the newest one says they are finished.
    const texts = savedMessages(statePaths(dir).sessionFile('alice')).flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
    const tasks = texts.filter((t) => t.startsWith('[teamd:task '));
    expect(tasks).toHaveLength(10);
    expect(tasks[0]).toMatch(/^\[teamd:task id=1\]\nYou claimed task 1/);
    expect(tasks[9]).toContain('Everything above this point is finished');
  });
});

describe('budgets that hold', () => {
  it('a teammate whose budget is spent stops for good (status budget, one notice, through idle timeouts and a daemon restart) until teamd budget raises it', async () => {
    const { dir, board } = workspace();
    await board.add({ subject: 'one', description: '```sh\necho one\n```' });
    await startDaemon(dir, { settings: { idleTimeoutMs: 200 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--budget-tokens', '3000', '--dir', dir])).code).toBe(0);
    await waitFor(() => member(dir, 'alice')?.status === 'budget', 'alice stopped for her budget');
    expect(member(dir, 'alice')).toMatchObject({ pid: null, problem: expect.stringContaining('token budget (3000) is spent') });
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
    // Work keeps appearing and another teammate does it; alice is never woken for it.
    await board.add({ subject: 'two', description: '```sh\necho two\n```' });
    expect((await runTeamd(['spawn', 'bob', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.get(1).status === 'completed' && board.get(2).status === 'completed', 'bob doing both');
    await waitFor(() => member(dir, 'bob')?.status === 'asleep', 'bob asleep after his idle timeout');
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    await startDaemon(dir);
    expect(member(dir, 'alice')?.status).toBe('budget');
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.stdout).toContain('alice stopped and takes no work');
    expect(notices(dir, 'alice')).toHaveLength(1);
    // Raised: she wakes and works.
    expect((await runTeamd(['shutdown', 'bob', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['budget', 'alice', '10000000', '--dir', dir])).code).toBe(0);
    await board.add({ subject: 'three', description: '```sh\necho three\n```' });
    await waitFor(() => board.get(3).status === 'completed', 'alice doing task 3');
    expect(board.get(3).owner).toBe('alice');
    expect(notices(dir, 'alice')).toHaveLength(1);
  });

  it('a team-wide budget stops every teammate the same way; teamd budget --team raises it', async () => {
    const { dir, board } = workspace();
    await board.add({ subject: 'one', description: '```sh\necho one\n```' });
    await startDaemon(dir, { settings: { teamBudgetTokens: 3000 } });
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => ['alice', 'bob'].every((n) => member(dir, n)?.status === 'budget'), 'both stopped for the team budget');
    expect(member(dir, 'alice')?.problem).toContain("the team's token budget (3000) is spent");
    // The notice names the budget that stopped it: the team's (issue 47), not the teammate's own.
    await waitFor(() => notices(dir, 'alice').length > 0 || undefined, "alice's notice to the lead");
    expect(notices(dir, 'alice')[0]!.content).toMatch(/Raise it with: teamd budget --team <tokens>$/);
    expect((await runTeamd(['budget', '--team', '10000000', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the task done once the team budget is raised');
  });

  it('wrong budget arguments get one clear line and exit 2', async () => {
    const { dir } = workspace();
    await startDaemon(dir);
    for (const args of [
      ['budget', 'alice', '-5'],
      ['budget', 'alice'],
      ['budget', '--team', '10', '20'],
      ['budget', 'nobody', '100'],
    ]) {
      const result = await runTeamd([...args, '--dir', dir]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

function notices(dir: string, from: string) {
  const raw = fs.readFileSync(statePaths(dir).inboxFile('lead'), 'utf8');
  return raw
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { from: string; content: string })
    .filter((m) => m.from === from && m.content.includes('budget'));
}
