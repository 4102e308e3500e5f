import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RevisionTokens } from '../../../src/store/files/revision-tokens.js';
import { openBoard } from '../../helpers/board.js';
import { collectOutput, runTeamd, startFixture } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** Seeds ready tasks fast (one lock for all), each with an abandoned, already stale lock folder. */
async function seedWithDeadLocks(root: string, count: number): Promise<void> {
  const { board, paths } = openBoard(root);
  for (let i = 0; i < count; i++) await board.add({ subject: `task ${i + 1}` });
  const past = new Date(Date.now() - 60_000);
  for (let id = 1; id <= count; id++) {
    fs.mkdirSync(`${paths.taskFile(id)}.lock`);
    fs.utimesSync(`${paths.taskFile(id)}.lock`, past, past);
  }
}

describe('claims under faults', () => {
  it('a takeover storm: 8 claimers started together on 2,000 tasks that each carry a dead holder lock claim each task once, and none crashes', async () => {
    const root = makeTempDir();
    await seedWithDeadLocks(root, 2_000);
    const runs = Array.from({ length: 8 }, (_, i) =>
      collectOutput(startFixture('claim-racer.mjs', [root, `racer-${i}`])).then((out) => ({ owner: `racer-${i}`, out })),
    );
    const owners = new Map<number, string[]>();
    for (const { owner, out } of await Promise.all(runs)) {
      expect(out.code, out.stderr).toBe(0);
      expect(out.stderr).not.toMatch(/ENOENT|utime|Error/);
      for (const match of out.stdout.matchAll(/^claimed (\d+) (\d+)$/gm)) owners.set(Number(match[1]), [...(owners.get(Number(match[1])) ?? []), owner]);
    }
    const doubles = [...owners].filter(([, who]) => who.length > 1);
    expect(doubles).toEqual([]);
    expect(owners.size).toBe(2_000);
    const { board } = openBoard(root);
    for (const task of board.list().tasks) expect(task).toMatchObject({ status: 'in_progress', claim: 1, owner: owners.get(task.id)?.[0] });
  });

  it('of two writers that read the same version, exactly one gets its successor', () => {
    const root = makeTempDir();
    const { paths } = openBoard(root);
    const a = new RevisionTokens({ paths, unknownWriterGraceMs: 5_000, currentRev: () => 3 });
    const b = new RevisionTokens({ paths, unknownWriterGraceMs: 5_000, currentRev: () => 3 });
    a.ensureDir();
    expect(a.take(7, 3)).toBe(4);
    expect(() => b.take(7, 3)).toThrow(/another process is writing revision 4/);
  });

  it('steps over the token of a writer killed between taking it and renaming the task, and never over a live one', async () => {
    const root = makeTempDir();
    const { board, paths } = openBoard(root);
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b' });
    // A dead writer's token for task 1's next version: its pid is gone.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.once('exit', resolve));
    fs.writeFileSync(paths.revisionToken(1, 1), JSON.stringify({ pid: dead.pid, start: null }));
    // A live (stopped, say) writer's token for task 2's next version.
    const live = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    try {
      fs.writeFileSync(paths.revisionToken(2, 1), JSON.stringify({ pid: live.pid, start: null }));
      const first = await board.claimNext('alice');
      expect(first).toMatchObject({ id: 1, owner: 'alice', claim: 1, rev: 2 });
      expect(await board.claimNext('alice')).toBeNull();
      expect(board.get(2)).toMatchObject({ status: 'pending', owner: null, rev: 0 });
    } finally {
      live.kill('SIGKILL');
    }
    await new Promise((resolve) => live.once('exit', resolve));
    expect(await board.claimNext('bob')).toMatchObject({ id: 2, owner: 'bob', rev: 2 });
  });

  it('a schema-invalid pending task is reported once and skipped; every other task stays claimable', async () => {
    const root = makeTempDir();
    const { board, paths } = openBoard(root);
    for (let i = 0; i < 4; i++) await board.add({ subject: `t${i + 1}` });
    const valid = JSON.parse(fs.readFileSync(paths.taskFile(1), 'utf8'));
    fs.writeFileSync(paths.taskFile(1), JSON.stringify({ ...valid, claim: -1 }));
    fs.writeFileSync(paths.taskFile(2), JSON.stringify({ ...valid, id: 99 }));
    fs.writeFileSync(paths.taskFile(3), JSON.stringify({ ...valid, id: 3, description: 'x'.repeat(70_000) }));
    const claimed = await runTeamd(['task', 'claim', '--next', '--owner', 'alice', '--dir', root, '--json']);
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(JSON.parse(claimed.stdout)).toMatchObject({ id: 4, owner: 'alice' });
    const none = await runTeamd(['task', 'claim', '--next', '--owner', 'alice', '--dir', root]);
    expect(none.code).toBe(3);
    const listed = await runTeamd(['task', 'list', '--dir', root]);
    expect(listed.stderr).toMatch(/task_1\.json.*claim/);
    expect(listed.stderr).toMatch(/task_2\.json.*id 99/);
    // Nothing on disk was changed.
    expect(JSON.parse(fs.readFileSync(paths.taskFile(1), 'utf8')).claim).toBe(-1);
  });

  it('a lock folder with a time in the future is taken over once nobody refreshes it', async () => {
    const root = makeTempDir();
    const { board, paths } = openBoard(root, { staleMs: 2_000 });
    await board.add({ subject: 'a' });
    const future = new Date(Date.now() + 3_600_000);
    fs.mkdirSync(`${paths.taskFile(1)}.lock`);
    fs.utimesSync(`${paths.taskFile(1)}.lock`, future, future);
    expect(await board.claimNext('alice')).toMatchObject({ id: 1, owner: 'alice' });
  });
});
