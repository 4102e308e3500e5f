import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOf } from '../../helpers/errors.js';
import { openBoard } from '../../helpers/board.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

// What every store promises is tested on both in test/store/board-contract.test.ts; here, what is the file store's own.
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
