import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../../helpers/board.js';
import { runTeamd } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const PRELOAD = path.resolve('test/fixtures/disk-fault.cjs');

/** teamd with one kind of file-system call failing as on a full disk (test/fixtures/disk-fault.cjs). */
function withFullDisk(args: string[], fault: { call: string; path: string; end?: boolean }) {
  return runTeamd(args, { env: { ...process.env, NODE_OPTIONS: `--require ${PRELOAD}`, TEAMD_TEST_DISK_FAULT: JSON.stringify(fault) } });
}

async function boardWithOneTask(): Promise<{ dir: string; ids: () => number[] }> {
  const dir = path.join(makeTempDir(), '.team');
  const { board } = openBoard(dir);
  await board.add({ subject: 'first' });
  return {
    dir,
    ids: () =>
      openBoard(dir)
        .board.list()
        .tasks.map((task) => task.id),
  };
}

describe('a disk that fills in the middle of a command', () => {
  it('a task written before the disk fills is added, and said to be: the id counter left behind only makes the next add look further', async () => {
    const { dir, ids } = await boardWithOneTask();
    const added = await withFullDisk(['task', 'add', 'second', '--dir', dir], { call: 'open', path: '.next-id' });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^task 2 added: second/);
    expect(ids()).toEqual([1, 2]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'tasks', '.next-id'), 'utf8'))).toEqual({ next: 2 });
    expect(fs.readFileSync(path.join(dir, 'logs', 'cli.log'), 'utf8')).toMatch(/task id counter not updated/);
    // With room again, the next add takes the next free id: task 2 is never written over.
    const next = await runTeamd(['task', 'add', 'third', '--dir', dir]);
    expect(next.stdout).toMatch(/^task 3 added: third/);
    expect(ids()).toEqual([1, 2, 3]);
  });

  it('a task whose folder cannot be synced after the rename is there, and the command says so instead of "nothing was changed"', async () => {
    const { dir, ids } = await boardWithOneTask();
    const added = await withFullDisk(['task', 'add', 'second', '--dir', dir], { call: 'fsync', path: `${path.sep}tasks`, end: true });
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(
      /^teamd: .*task_2\.json was written, but syncing it to disk failed \(ENOSPC: .*\): the change stands, though a power cut could still undo it \(the disk is full: free some space\)\n$/,
    );
    expect(added.stderr).not.toMatch(/retry|nothing was changed/);
    expect(ids()).toEqual([1, 2]);
    // Its revision token stayed: the next add does not take id 2 again.
    expect((await runTeamd(['task', 'add', 'third', '--dir', dir])).stdout).toMatch(/^task 3 added/);
  });

  it('a claim whose folder sync fails stands, with its owner index and a clean board after', async () => {
    const { dir } = await boardWithOneTask();
    const claimed = await withFullDisk(['task', 'claim', '1', '--owner', 'lead', '--dir', dir], { call: 'fsync', path: `${path.sep}tasks`, end: true });
    expect(claimed.code).toBe(1);
    expect(claimed.stderr).toMatch(/task_1\.json was written, .*the change stands/);
    const { board } = openBoard(dir);
    expect(board.list().tasks[0]).toMatchObject({ status: 'in_progress', owner: 'lead', claim: 1 });
    // The claim's bookkeeping was finished: lead finds the task as its own, and can complete it.
    expect(board.ownedBy('lead').map((task) => task.id)).toEqual([1]);
    await board.complete(1, { owner: 'lead', claim: 1 }, 'done');
    expect(board.list().tasks[0]).toMatchObject({ status: 'completed' });
  });

  it('a task completed whose done folder cannot be synced has left the live folder all the same', async () => {
    const { dir } = await boardWithOneTask();
    const { board, paths } = openBoard(dir);
    await board.claim(1, 'lead');
    const done = await withFullDisk(['task', 'done', '1', '--owner', 'lead', '--dir', dir], { call: 'fsync', path: `${path.sep}done`, end: true });
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/task_1\.json was written, .*the change stands/);
    expect(fs.existsSync(paths.taskFile(1))).toBe(false);
    expect(board.list().tasks[0]).toMatchObject({ status: 'completed' });
  });

  it('a message appended but not synced is in the inbox, and the command says so', async () => {
    const { dir } = await boardWithOneTask();
    const sent = await withFullDisk(['send', 'lead', 'hello', '--dir', dir], { call: 'fdatasync', path: 'lead.jsonl' });
    expect(sent.code).toBe(1);
    expect(sent.stderr).toMatch(/a record appended to .*lead\.jsonl was written, but syncing it to disk failed .*the change stands/);
    expect(sent.stderr).not.toMatch(/retry|nothing was changed/);
    expect(fs.readFileSync(path.join(dir, 'inbox', 'lead.jsonl'), 'utf8')).toMatch(/"content":"hello"/);
  });

  it('a task the disk had no room for is not added, and the command says to free space and retry', async () => {
    const { dir, ids } = await boardWithOneTask();
    const added = await withFullDisk(['task', 'add', 'second', '--dir', dir], { call: 'rename', path: 'task_2.json' });
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(/ENOSPC.*\(the disk is full: free some space and retry; nothing was changed\)\n$/);
    expect(ids()).toEqual([1]);
  });

  it('a lock that cannot be removed after the work is done leaves the work done and reported as done', async () => {
    const { dir, ids } = await boardWithOneTask();
    const added = await runTeamd(['task', 'add', 'second', '--dir', dir], {
      env: { ...process.env, NODE_OPTIONS: `--require ${PRELOAD}`, TEAMD_TEST_DISK_FAULT: JSON.stringify({ call: 'rmdir', path: '.board.lock' }) },
    });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^task 2 added: second/);
    expect(ids()).toEqual([1, 2]);
    expect(fs.readFileSync(path.join(dir, 'logs', 'cli.log'), 'utf8')).toMatch(/could not remove a lock; it will go stale/);
  });
});
