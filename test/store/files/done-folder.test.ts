import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../../helpers/board.js';
import { runTeamd } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

function board() {
  const dir = path.join(makeTempDir(), '.team');
  return { dir, ...openBoard(dir) };
}

describe('finished tasks leave the folder claimers scan', () => {
  it('a completed task moves to tasks/done/, and task show, dependencies, list and watch still find it', async () => {
    const { dir, board: b, paths } = board();
    await b.add({ subject: 'build' });
    await b.add({ subject: 'test', blockedBy: [1] });
    await b.claim(1, 'alice');
    await b.complete(1, { owner: 'alice' }, 'built');
    expect(fs.existsSync(paths.taskFile(1))).toBe(false);
    expect(JSON.parse(fs.readFileSync(paths.doneTaskFile(1), 'utf8')).status).toBe('completed');
    // The live folder holds only what can still change hands.
    expect(fs.readdirSync(paths.tasksDir).filter((name) => name.startsWith('task_'))).toEqual(['task_2.json']);

    const show = await runTeamd(['task', 'show', '1', '--json', '--dir', dir]);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: 1, status: 'completed', result: 'built' });
    const ready = await runTeamd(['task', 'list', '--ready', '--json', '--dir', dir]);
    expect((JSON.parse(ready.stdout) as { id: number }[]).map((t) => t.id)).toEqual([2]);
    const all = await runTeamd(['task', 'list', '--json', '--dir', dir]);
    expect((JSON.parse(all.stdout) as { id: number; status: string }[]).map((t) => [t.id, t.status])).toEqual([
      [1, 'completed'],
      [2, 'pending'],
    ]);
    const watch = await runTeamd(['watch', '--once', '--dir', dir]);
    expect(watch.stdout).toMatch(/1 pending/);
    expect(watch.stdout).toMatch(/1 completed/);
    // A dependency on a finished task is still checked: unknown ids are refused, known finished ones accepted.
    expect((await b.add({ subject: 'ship', blockedBy: [1, 2] })).blockedBy).toEqual([1, 2]);
    expect((await b.claimNext('bob'))?.id).toBe(2);
  });

  it('a failed task given another try moves back, and is claimable again', async () => {
    const { board: b, paths } = board();
    await b.add({ subject: 'flaky' });
    await b.claim(1, 'alice');
    await b.fail(1, { owner: 'alice' }, 'it broke');
    expect(fs.existsSync(paths.doneTaskFile(1))).toBe(true);
    await b.release(1);
    expect(fs.existsSync(paths.doneTaskFile(1))).toBe(false);
    expect((await b.claimNext('bob'))?.id).toBe(1);
  });

  it('the owner index lists what a teammate holds, without listing the board, and forgets finished tasks', async () => {
    const { board: b, paths } = board();
    for (let i = 0; i < 3; i++) await b.add({ subject: `t${i}` });
    await b.claim(1, 'alice');
    await b.claim(2, 'alice');
    await b.claim(3, 'bob');
    expect(b.ownedBy('alice').map((t) => t.id)).toEqual([1, 2]);
    expect(fs.readdirSync(path.join(paths.ownersDir, 'alice')).sort()).toEqual(['1', '2']);
    await b.complete(1, { owner: 'alice' });
    await b.release(2, { owner: 'alice' });
    expect(b.ownedBy('alice')).toEqual([]);
    expect(fs.readdirSync(path.join(paths.ownersDir, 'alice'))).toEqual([]);
    expect(b.ownedBy('bob').map((t) => t.id)).toEqual([3]);
  });

  it('a writer killed between writing done/ and removing the live copy: readers see the newer copy; the stale one is never claimed and is tidied', async () => {
    const { board: b, paths } = board();
    await b.add({ subject: 'cancel me' });
    const stale = fs.readFileSync(paths.taskFile(1), 'utf8');
    await b.cancel(1);
    // What the kill leaves: the cancelled version in done/, the pending one still in the live folder.
    fs.writeFileSync(paths.taskFile(1), stale);
    expect(b.get(1).status).toBe('cancelled');
    expect(await b.claimNext('alice')).toBeNull();
    expect(await b.reconcile()).toEqual({ moved: 0, indexed: 0 });
    expect(fs.existsSync(paths.taskFile(1))).toBe(false);
    expect(b.get(1).status).toBe('cancelled');
  });

  it('tasks finished by an earlier version, still in the live folder, are moved by reconcile; a missing owner entry is made', async () => {
    const { board: b, paths } = board();
    await b.add({ subject: 'old' });
    await b.add({ subject: 'held' });
    await b.claim(2, 'alice');
    await b.claim(1, 'bob');
    await b.complete(1, { owner: 'bob' });
    // As an older teamd left it: the finished task in tasks/, no owner index.
    fs.renameSync(paths.doneTaskFile(1), paths.taskFile(1));
    fs.rmSync(paths.ownersDir, { recursive: true });
    expect(await b.reconcile()).toEqual({ moved: 1, indexed: 1 });
    expect(fs.existsSync(paths.doneTaskFile(1))).toBe(true);
    expect(b.ownedBy('alice').map((t) => t.id)).toEqual([2]);
  });

  it('a task can name the role it is meant for (kept in its file; the daemon rings that role first)', async () => {
    const { dir } = board();
    const added = await runTeamd(['task', 'add', 'write the tests', '--role', 'tester', '--json', '--dir', dir]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ id: 1, role: 'tester' });
    const plain = await runTeamd(['task', 'add', 'anything', '--json', '--dir', dir]);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('role');
    expect((await runTeamd(['task', 'add', 'bad', '--role', ' ', '--dir', dir])).code).toBe(2);
  });

  it('task files copied in past the id counter (cp, git checkout) do not stop task add', async () => {
    const { board: b, paths } = board();
    await b.add({ subject: 'one' });
    const copy = JSON.parse(fs.readFileSync(paths.taskFile(1), 'utf8')) as { id: number };
    for (const id of [2, 3, 70, 71]) fs.writeFileSync(paths.taskFile(id), JSON.stringify({ ...copy, id }));
    expect((await b.add({ subject: 'after the copy' })).id).toBe(72);
  });
});
