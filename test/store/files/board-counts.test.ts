import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { countFileBoard } from '../../../src/store/files/board-counts.js';
import { countListing } from '../../../src/domain/board-counts.js';
import { DoneIndex } from '../../../src/store/files/done-index.js';
import { TaskStore } from '../../../src/store/files/task-store.js';
import type { Board } from '../../../src/store/files/board.js';
import type { StatePaths } from '../../../src/paths.js';
import { openBoard } from '../../helpers/board.js';
import { runTeamd } from '../../helpers/processes.js';
import { writeRoster } from '../../helpers/team.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** 12 tasks: 2 pending, 2 in progress, 5 completed, 2 failed, 1 cancelled. */
async function mixedBoard(): Promise<{ dir: string; board: Board; paths: StatePaths }> {
  const dir = path.join(makeTempDir(), '.team');
  const { board, paths } = openBoard(dir);
  for (let i = 1; i <= 12; i++) await board.add({ subject: `task ${i}` });
  for (const id of [3, 4, 5, 6, 7, 8, 9, 10, 11]) await board.claim(id, 'alice');
  for (const id of [5, 6, 7, 8, 9]) await board.complete(id, { owner: 'alice' }, `done ${id}`);
  for (const id of [10, 11]) await board.fail(id, { owner: 'alice' }, `broke ${id}`);
  await board.cancel(12);
  return { dir, board, paths };
}

/** What a full listing says: the reference the counts must equal. */
function fromListing(board: Board, failedShown = 5) {
  const listing = board.list();
  return countListing(listing.tasks, listing.problems, failedShown);
}

const summary = (counted: ReturnType<typeof countListing>) => ({
  counts: counted.counts,
  failed: counted.failed.map((task) => [task.id, task.status, task.result]),
  problems: counted.problems.map((problem) => [problem.id, problem.file]),
  held: counted.held,
});

describe('the board counted for teamd status, with the done index (store/files/done-index.ts)', () => {
  it('gives what a listing gives, and reads no finished task but the failed ones it shows', async () => {
    const { board, paths } = await mixedBoard();
    const counted = board.counts(5);
    expect(counted.counts).toEqual({ pending: 2, in_progress: 2, completed: 5, failed: 2, cancelled: 1 });
    expect(summary(counted)).toEqual(summary(fromListing(board)));
    expect(fs.readFileSync(paths.doneIndex, 'utf8').trim().split('\n')).toHaveLength(8);

    const store = new TaskStore(paths);
    const read = vi.spyOn(store, 'read');
    const again = countFileBoard(store, paths, 1);
    expect(summary(again)).toEqual(summary(fromListing(board, 1)));
    // The live tasks (1-4), and the one failed task shown.
    expect(read.mock.calls.map(([id]) => id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 10]);
  });

  it('a finished task changed by hand is counted as its file now says; an invalid one is a problem, as in a listing', async () => {
    const { board, paths } = await mixedBoard();
    // Rewritten in place at the same size: only the file's times tell it changed.
    const five = fs.readFileSync(paths.doneTaskFile(5), 'utf8');
    fs.writeFileSync(paths.doneTaskFile(5), five.replace('"completed"', '"cancelled"'));
    expect(fs.statSync(paths.doneTaskFile(5)).size).toBe(five.length);
    fs.writeFileSync(paths.doneTaskFile(6), '{"id": 6, "status": "completed"}\n');
    fs.writeFileSync(paths.doneTaskFile(7), 'not json');
    const counted = board.counts(5);
    expect(counted.counts).toEqual({ pending: 2, in_progress: 2, completed: 2, failed: 2, cancelled: 2 });
    expect(counted.problems.map((problem) => problem.id)).toEqual([6, 7]);
    expect(summary(counted)).toEqual(summary(fromListing(board)));
  });

  it('a missing, torn or garbled index, lines for tasks that left, and a task in both folders change nothing', async () => {
    const { board, paths } = await mixedBoard();
    const reference = summary(fromListing(board));
    const lines = fs.readFileSync(paths.doneIndex, 'utf8');

    fs.rmSync(paths.doneIndex);
    expect(summary(board.counts(5))).toEqual(reference);

    // Torn mid-line (a writer killed in its append), garbage, a wrong field, and a line for a task not in the folder.
    fs.writeFileSync(
      paths.doneIndex,
      `garbage\n${lines.slice(0, Math.floor(lines.length / 2))}\n{"id":"x"}\n{"id":99,"status":"failed","ino":1,"size":1,"mtimeMs":1,"ctimeMs":1}\n`,
    );
    expect(summary(board.counts(5))).toEqual(reference);

    // A writer killed mid-move: the finished task is in both folders (the newer copy counts, once).
    fs.copyFileSync(paths.doneTaskFile(8), paths.taskFile(8));
    expect(summary(board.counts(5))).toEqual(summary(fromListing(board)));
    expect(board.counts(5).counts.completed).toBe(5);

    // A failed task given another try leaves the folder; its old line is not counted.
    fs.writeFileSync(paths.doneIndex, lines);
    await board.release(10);
    const after = board.counts(5);
    expect(after.counts).toEqual({ pending: 3, in_progress: 2, completed: 5, failed: 1, cancelled: 1 });
    expect(summary(after)).toEqual(summary(fromListing(board)));
  });

  it('an index past its size limit is not read: the files are', async () => {
    const { board, paths } = await mixedBoard();
    const store = new TaskStore(paths, new DoneIndex(paths.doneIndex, 100));
    const read = vi.spyOn(store, 'read');
    expect(summary(countFileBoard(store, paths, 5))).toEqual(summary(fromListing(board)));
    expect(read.mock.calls.map(([id]) => id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('reconciling the board at start compacts an index grown past twice the finished tasks, and only then', async () => {
    const { board, paths } = await mixedBoard();
    const reference = summary(fromListing(board));
    const before = fs.statSync(paths.doneIndex).ino;
    await board.reconcile();
    expect(fs.statSync(paths.doneIndex).ino).toBe(before);
    // Lines for tasks that were given another try, finished again, or never were: 2,000 of them.
    const stale = (id: number): string => `${JSON.stringify({ id, status: 'failed', ino: 1, size: 1, mtimeMs: 1, ctimeMs: 1 })}\n`;
    fs.appendFileSync(paths.doneIndex, Array.from({ length: 2000 }, (_, i) => stale(5 + (i % 800))).join(''));
    await board.reconcile();
    const ids = () =>
      fs
        .readFileSync(paths.doneIndex, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: number }).id);
    // The 8 finished tasks' last lines were the stale ones for ids 5-12: none is kept; each file is
    // read once and given a line of its own again.
    expect(ids()).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    expect(summary(board.counts(5))).toEqual(reference);
    // A finish after it appends again, and is counted from the index.
    await board.release(10);
    await board.claim(10, 'bob');
    await board.fail(10, { owner: 'bob' }, 'again');
    expect(ids()).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 10]);
    expect(summary(board.counts(5))).toEqual(summary(fromListing(board)));
  });

  it('reconciling gives each finished task the index has no line for (the index lost) one: from then on it is counted by a stat, not read', async () => {
    const { board, paths } = await mixedBoard();
    fs.rmSync(paths.doneIndex);
    await board.reconcile();
    const store = new TaskStore(paths, new DoneIndex(paths.doneIndex));
    const read = vi.spyOn(store, 'read');
    expect(summary(countFileBoard(store, paths, 5))).toEqual(summary(fromListing(board)));
    // The live tasks (1-4) and the failed ones shown (10, 11): no other finished task is read.
    expect(read.mock.calls.map(([id]) => id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 10, 11]);
    // A file changed by hand after its line no longer fits it, and is read again.
    const nine = JSON.parse(fs.readFileSync(paths.doneTaskFile(9), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(paths.doneTaskFile(9), JSON.stringify({ ...nine, status: 'cancelled' }));
    read.mockClear();
    expect(countFileBoard(store, paths, 5).counts).toMatchObject({ completed: 4, cancelled: 2 });
    expect(read.mock.calls.map(([id]) => id)).toContain(9);
  });

  it('compacting keeps the verified lines and drops the rest', async () => {
    const { board, paths } = await mixedBoard();
    const good = fs.readFileSync(paths.doneIndex, 'utf8');
    fs.writeFileSync(paths.doneIndex, `${'{"id":999,"status":"completed","ino":1,"size":1,"mtimeMs":1,"ctimeMs":1}\n'.repeat(1100)}${good}`);
    await board.reconcile();
    expect(fs.readFileSync(paths.doneIndex, 'utf8')).toBe(good);
    expect(summary(board.counts(5))).toEqual(summary(fromListing(board)));
  });

  it('a task still finishes when its line cannot be appended (the index is only a hint)', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const { board, paths } = openBoard(dir);
    await board.add({ subject: 'one' });
    await board.claim(1, 'alice');
    fs.mkdirSync(paths.doneIndex, { recursive: true });
    const done = await board.complete(1, { owner: 'alice' }, 'ok');
    expect(done.status).toBe('completed');
    expect(board.counts(5).counts.completed).toBe(1);
  });

  it('teamd status shows the counts and the failed tasks, from the index and from files alike', async () => {
    const { dir, paths } = await mixedBoard();
    const before = await runTeamd(['status', '--json', '--dir', dir]);
    expect(before.code, before.stderr).toBe(0);
    const json = JSON.parse(before.stdout) as { tasks: Record<string, number>; needsYou: string[] };
    expect(json.tasks).toEqual({ pending: 2, in_progress: 2, completed: 5, failed: 2, cancelled: 1 });
    expect(json.needsYou.filter((line) => /failed/.test(line))).toEqual([
      'task 10 failed (alice): broke 10 (teamd task show 10)',
      'task 11 failed (alice): broke 11 (teamd task show 11)',
    ]);
    // alice, who holds tasks 3 and 4, is on no roster here: the person is asked about them.
    expect(json.needsYou.filter((line) => /held by/.test(line))).toEqual([
      'task 3 is held by alice, who is not a teammate: if nobody works on it, put it back with teamd task release 3',
      'task 4 is held by alice, who is not a teammate: if nobody works on it, put it back with teamd task release 4',
    ]);
    writeRoster(dir, ['alice']);
    const known = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { needsYou: string[] };
    expect(known.needsYou.filter((line) => /held by/.test(line))).toEqual([]);
    fs.rmSync(paths.doneIndex);
    const without = await runTeamd(['status', '--json', '--dir', dir]);
    expect(JSON.parse(without.stdout)).toMatchObject({ tasks: json.tasks, needsYou: known.needsYou });
  });
});
