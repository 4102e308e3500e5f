import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TeamdError } from '../../src/errors.js';
import { openBoard } from '../helpers/board.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function codeOf(promise: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof TeamdError) return error.code;
    throw error;
  }
  return undefined;
}

describe('Board on real files', () => {
  it('writes one JSON file per task with the contract fields, ids ascending', async () => {
    const { board, paths } = openBoard(makeTempDir());
    const first = await board.add({ subject: 'set up', description: 'mkdir src' });
    const second = await board.add({ subject: 'build', blockedBy: [first.id] });
    expect([first.id, second.id]).toEqual([1, 2]);
    const onDisk = JSON.parse(fs.readFileSync(paths.taskFile(2), 'utf8'));
    expect(Object.keys(onDisk).sort()).toEqual(
      ['id', 'subject', 'description', 'status', 'owner', 'blockedBy', 'claim', 'rev', 'createdAt', 'updatedAt', 'claimedAt', 'completedAt', 'result'].sort(),
    );
    expect(onDisk).toMatchObject({ id: 2, status: 'pending', owner: null, blockedBy: [1], claim: 0, rev: 0 });
    expect(fs.readdirSync(paths.tasksDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('an add with a key already on the board returns that task: a creator repeating a step makes no second task', async () => {
    const { board } = openBoard(path.join(makeTempDir(), '.team'));
    const first = await board.add({ subject: 'build', createdBy: 'lead', key: 'goal-1/build' });
    await board.complete(first.id, {}, 'done');
    const again = await board.add({ subject: 'build, said again', createdBy: 'lead', key: 'goal-1/build' });
    expect(again).toMatchObject({ id: first.id, subject: 'build', status: 'completed', createdBy: 'lead', key: 'goal-1/build' });
    const other = await board.add({ subject: 'build', key: 'goal-2/build' });
    expect(other.id).toBe(first.id + 1);
    const racing = await Promise.all([board.add({ subject: 'x', key: 'same' }), board.add({ subject: 'x', key: 'same' })]);
    expect(racing[0].id).toBe(racing[1].id);
    expect(board.list().tasks).toHaveLength(3);
  });

  it('lists in numeric order, not string order', async () => {
    const { board } = openBoard(makeTempDir());
    for (let i = 0; i < 12; i++) await board.add({ subject: `task ${i + 1}` });
    expect(board.list().tasks.map((task) => task.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('never reuses an id, even after the highest task file is removed', async () => {
    const { board, paths } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b' });
    fs.rmSync(paths.taskFile(2));
    expect((await board.add({ subject: 'c' })).id).toBe(3);
  });

  it('recovers the id sequence from the task files when the counter is damaged', async () => {
    const { board, paths } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b' });
    fs.writeFileSync(paths.taskCounter, '{"ne');
    expect((await board.add({ subject: 'c' })).id).toBe(3);
  });

  it('refuses unknown blocker ids, naming them, and creates nothing', async () => {
    const { board } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    const error = await board.add({ subject: 'b', blockedBy: [1, 5, 9] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TeamdError);
    expect((error as TeamdError).code).toBe('UNKNOWN_BLOCKER');
    expect((error as TeamdError).message).toContain('5, 9');
    expect(board.list().tasks).toHaveLength(1);
  });

  it('refuses a self-edge and a cycle when blockers are changed, and keeps the old blockers', async () => {
    const { board } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b', blockedBy: [1] });
    await board.add({ subject: 'c', blockedBy: [2] });
    expect(await codeOf(board.setBlockers(1, [1]))).toBe('DEPENDENCY_CYCLE');
    const error = (await board.setBlockers(1, [3]).catch((e: unknown) => e)) as TeamdError;
    expect(error.code).toBe('DEPENDENCY_CYCLE');
    expect(error.message).toContain('1 -> 3 -> 2 -> 1');
    expect(board.get(1).blockedBy).toEqual([]);
    expect((await board.setBlockers(3, [1, 2])).blockedBy).toEqual([1, 2]);
  });

  it('computes readiness when asked: completing a blocker edits no dependent', async () => {
    const { board, paths } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b', blockedBy: [1] });
    const dependentBefore = fs.readFileSync(paths.taskFile(2), 'utf8');
    expect(board.list({ ready: true }).tasks.map((t) => t.id)).toEqual([1]);
    await board.claim(1, 'alice');
    await board.complete(1, { owner: 'alice' }, 'ok');
    expect(fs.readFileSync(paths.taskFile(2), 'utf8')).toBe(dependentBefore);
    expect(board.list({ ready: true }).tasks.map((t) => t.id)).toEqual([2]);
  });

  it('shows a task whose blocker failed as stuck, and release gives it another try', async () => {
    const { board } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b', blockedBy: [1] });
    await board.claim(1, 'alice');
    await board.fail(1, { owner: 'alice' }, 'exit 2');
    expect(board.get(2)).toMatchObject({ ready: false, stuck: true, stuckOn: [1] });
    expect(await board.claimNext('bob')).toBeNull();
    await board.release(1);
    expect(board.get(2).stuck).toBe(false);
    expect((await board.claimNext('bob'))?.id).toBe(1);
  });

  it('claims the lowest-id ready task, and returns null when nothing is ready', async () => {
    const { board } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b', blockedBy: [1] });
    await board.add({ subject: 'c' });
    expect((await board.claimNext('alice'))?.id).toBe(1);
    expect((await board.claimNext('bob'))?.id).toBe(3);
    expect(await board.claimNext('carol')).toBeNull();
  });

  it('fences off a presumed-dead holder: its older claim number is refused after a re-claim', async () => {
    const { board } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    const old = await board.claim(1, 'alice');
    await board.release(1);
    const fresh = await board.claim(1, 'alice');
    expect(await codeOf(board.complete(1, { owner: 'alice', claim: old.claim }, 'late'))).toBe('STALE_CLAIM');
    expect((await board.complete(1, { owner: 'alice', claim: fresh.claim }, 'ok')).status).toBe('completed');
  });

  it("refuses to complete or fail someone else's task, and an invalid owner name", async () => {
    const { board } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.claim(1, 'alice');
    expect(await codeOf(board.complete(1, { owner: 'bob' }))).toBe('NOT_OWNER');
    expect(await codeOf(board.fail(1, { owner: 'bob' }, 'x'))).toBe('NOT_OWNER');
    expect(await codeOf(board.claim(1, '../etc'))).toBe('INVALID_NAME');
    expect(board.get(1)).toMatchObject({ status: 'in_progress', owner: 'alice' });
  });

  it('refuses oversized and empty text with a clear error and stores nothing', async () => {
    const { board } = openBoard(makeTempDir());
    const error = (await board.add({ subject: 'x'.repeat(500) }).catch((e: unknown) => e)) as TeamdError;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(/500 characters; the limit is 200/);
    expect(await codeOf(board.add({ subject: '   ' }))).toBe('INVALID_INPUT');
    expect(board.list().tasks).toEqual([]);
  });

  it('lists every other task past a corrupt file, names it, and leaves its bytes untouched', async () => {
    const { board, paths } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    await board.add({ subject: 'b' });
    await board.add({ subject: 'c' });
    const torn = '{"id": 2, "subject": "b", "stat';
    fs.writeFileSync(paths.taskFile(2), torn);
    const listing = board.list();
    expect(listing.tasks.map((t) => t.id)).toEqual([1, 3]);
    expect(listing.problems).toEqual([{ id: 2, file: paths.taskFile(2), reason: expect.stringContaining('not JSON') }]);
    expect(await codeOf(board.claim(2, 'alice'))).toBe('TASK_CORRUPT');
    expect((await board.claimNext('alice'))?.id).toBe(1);
    expect((await board.claimNext('alice'))?.id).toBe(3);
    expect(await board.claimNext('alice')).toBeNull();
    expect((await board.add({ subject: 'd' })).id).toBe(4);
    expect(fs.readFileSync(paths.taskFile(2), 'utf8')).toBe(torn);
  });

  it('treats a valid JSON file that breaks the contract as corrupt too', async () => {
    const { board, paths } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    fs.writeFileSync(paths.taskFile(1), JSON.stringify({ ...board.get(1), status: 'done' }));
    expect(board.list().problems[0]?.reason).toMatch(/status/);
    fs.writeFileSync(paths.taskFile(1), JSON.stringify({ ...JSON.parse('{}'), id: 1 }));
    expect(board.list().problems).toHaveLength(1);
  });

  it('ignores lock folders and temp files when listing', async () => {
    const { board, paths } = openBoard(makeTempDir());
    await board.add({ subject: 'a' });
    fs.mkdirSync(path.join(paths.tasksDir, 'task_1.json.lock'));
    fs.writeFileSync(path.join(paths.tasksDir, '.task_1.json.123.abcd.tmp'), '{"id":');
    expect(board.list()).toMatchObject({ tasks: [{ id: 1 }], problems: [] });
  });
});
