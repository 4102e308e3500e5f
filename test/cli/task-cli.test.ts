import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function stateDir(): string {
  return path.join(makeTempDir(), 'state');
}

describe('teamd task (real CLI process)', () => {
  it('adds, lists, claims and completes through the CLI, with JSON only on stdout', async () => {
    const dir = stateDir();
    const added = await runTeamd(['task', 'add', 'Set up', '--description', 'mkdir src', '--dir', dir, '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ id: 1, subject: 'Set up', description: 'mkdir src', status: 'pending' });
    expect((await runTeamd(['task', 'add', 'Build', '--blocked-by', '1', '--dir', dir])).stdout).toBe('task 2 added: Build\n');

    const listed = await runTeamd(['task', 'list', '--dir', dir, '--json']);
    const tasks = JSON.parse(listed.stdout);
    expect(tasks.map((t: { id: number; ready: boolean }) => [t.id, t.ready])).toEqual([
      [1, true],
      [2, false],
    ]);

    const claimed = await runTeamd(['task', 'claim', '--next', '--owner', 'alice', '--dir', dir, '--json']);
    expect(JSON.parse(claimed.stdout)).toMatchObject({ id: 1, owner: 'alice', status: 'in_progress', claim: 1 });
    const done = await runTeamd(['task', 'done', '1', '--owner', 'alice', '--claim', '1', '--result', 'made src/', '--dir', dir]);
    expect(done.code, done.stderr).toBe(0);

    const ready = JSON.parse((await runTeamd(['task', 'list', '--ready', '--dir', dir, '--json'])).stdout);
    expect(ready.map((t: { id: number }) => t.id)).toEqual([2]);
    const shown = await runTeamd(['task', 'show', '1', '--dir', dir]);
    expect(shown.stdout).toContain('made src/');
  });

  it('uses TEAMD_DIR, then ./.team, when --dir is not given', async () => {
    const cwd = makeTempDir();
    expect((await runTeamd(['task', 'add', 'in env dir'], { cwd, env: { TEAMD_DIR: 'custom' } })).code).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'custom/tasks/task_1.json'))).toBe(true);
    expect((await runTeamd(['task', 'add', 'in default dir'], { cwd })).code).toBe(0);
    expect(fs.existsSync(path.join(cwd, '.team/tasks/task_1.json'))).toBe(true);
  });

  it('a state folder that cannot be created (under /proc) is a one-line error, not a hang', async () => {
    for (const args of [['task', 'add', 'x'], ['send', 'lead', 'hi'], ['start'], ['status']]) {
      const result = await runTeamd([...args, '--dir', '/proc/teamd-nowhere']);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('/proc/teamd-nowhere');
    }
  });

  it('claim --next exits 3 with a message on stderr when nothing is ready', async () => {
    const dir = stateDir();
    await runTeamd(['task', 'add', 'a', '--dir', dir]);
    await runTeamd(['task', 'claim', '1', '--owner', 'bob', '--dir', dir]);
    const result = await runTeamd(['task', 'claim', '--next', '--owner', 'alice', '--dir', dir, '--json']);
    expect(result).toMatchObject({ code: 3, stdout: '' });
    expect(result.stderr).toMatch(/no task is ready/);
  });

  it('wrong arguments give a one-line error and the usage, exit 2', async () => {
    const dir = stateDir();
    for (const args of [
      ['task', 'add'],
      ['task', 'claim', '--owner', 'alice'],
      ['task', 'claim', '1', '--next', '--owner', 'alice'],
      ['task', 'claim', 'abc', '--owner', 'alice'],
      ['task', 'claim', '--next', '--owner', '../../etc'],
      ['task', 'list', '--status', 'done'],
      ['task', 'add', 'x', '--blocked-by', '1,two'],
      ['task', 'add', 'x', '--blocked-by', '1,'],
      ['task', 'add', 'x', '--blocked-by', '1,,2'],
      ['task', 'frobnicate'],
    ]) {
      const result = await runTeamd([...args, '--dir', dir]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(/^teamd: /);
      expect(result.stdout).toBe('');
    }
    const usage = await runTeamd(['task', 'add', '--dir', dir]);
    expect(usage.stderr).toContain('usage: teamd task add [options] <subject>');
    expect(fs.existsSync(path.join(dir, 'tasks'))).toBe(false);
  });

  it('an oversized subject is refused with the limit, and nothing is stored', async () => {
    const dir = stateDir();
    const result = await runTeamd(['task', 'add', 'x'.repeat(1000), '--dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/1000 characters; the limit is 200/);
    expect(fs.existsSync(path.join(dir, 'tasks'))).toBe(false);
  });

  it("refuses completing someone else's task (exit 4) and a cycle, naming it", async () => {
    const dir = stateDir();
    await runTeamd(['task', 'add', 'a', '--dir', dir]);
    await runTeamd(['task', 'add', 'b', '--blocked-by', '1', '--dir', dir]);
    await runTeamd(['task', 'claim', '1', '--owner', 'alice', '--dir', dir]);
    const notMine = await runTeamd(['task', 'done', '1', '--owner', 'bob', '--dir', dir]);
    expect(notMine.code).toBe(4);
    expect(notMine.stderr).toMatch(/owned by alice/);
    // A claim number from the future is no stale holder: it was never given.
    const future = await runTeamd(['task', 'done', '1', '--owner', 'alice', '--claim', '7', '--dir', dir]);
    expect(future.code).toBe(4);
    expect(future.stderr).toBe(
      "teamd: cannot complete task 1 with claim 7: no such claim was ever made (the task's claim is 1); give the number its claim printed\n",
    );
    const cycle = await runTeamd(['task', 'block', '1', '--by', '2', '--dir', dir]);
    expect(cycle.code).toBe(4);
    expect(cycle.stderr).toContain('1 -> 2 -> 1');
    const unknown = await runTeamd(['task', 'add', 'c', '--blocked-by', '7', '--dir', dir]);
    expect(unknown.stderr).toMatch(/unknown blocker task id\(s\): 7/);
  });

  it('read-only commands refuse a missing state folder instead of showing an empty board', async () => {
    const dir = stateDir();
    const result = await runTeamd(['task', 'list', '--dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no teamd state folder at ${dir}`);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('a corrupt task file: list shows every other task, names the file on stderr, keeps its bytes', async () => {
    const dir = stateDir();
    for (const subject of ['a', 'b', 'c']) await runTeamd(['task', 'add', subject, '--dir', dir]);
    const file = path.join(dir, 'tasks/task_2.json');
    fs.writeFileSync(file, '{"id": 2, "subj');
    const result = await runTeamd(['task', 'list', '--dir', dir, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).map((t: { id: number }) => t.id)).toEqual([1, 3]);
    expect(result.stderr).toContain(file);
    const shown = await runTeamd(['task', 'show', '2', '--dir', dir]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('left untouched');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"id": 2, "subj');
  });

  it('8 CLI processes racing claim --next claim each task once and all exit 3 at the end', async () => {
    const dir = stateDir();
    const count = 16;
    for (let i = 0; i < count; i++) await runTeamd(['task', 'add', `t${i}`, '--dir', dir]);
    const claimedBy = new Map<number, string>();
    let doubles = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, racer) => {
        const owner = `cli-${racer}`;
        for (;;) {
          const result = await runTeamd(['task', 'claim', '--next', '--owner', owner, '--dir', dir, '--json']);
          if (result.code === 3) return;
          expect(result.code, result.stderr).toBe(0);
          const id = JSON.parse(result.stdout).id as number;
          if (claimedBy.has(id)) doubles++;
          claimedBy.set(id, owner);
        }
      }),
    );
    expect(doubles).toBe(0);
    expect(claimedBy.size).toBe(count);
  });
});
