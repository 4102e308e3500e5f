import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskBoard } from '../../src/contracts/task-board.js';
import { FULL_READ_EVERY_MS, UiBoardReader } from '../../src/ui/ui-board-reader.js';
import { openTaskBoard } from '../helpers/board.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A real file board, with its listings counted: what each kind of read costs is what it lists. */
function countedBoard() {
  const { board } = openTaskBoard(path.join(makeTempDir(), '.team'));
  const calls: string[] = [];
  const counted: TaskBoard = {
    ...board,
    add: (input) => board.add(input),
    claim: (id, owner) => board.claim(id, owner),
    complete: (id, actor, result) => board.complete(id, actor, result),
    cancel: (id) => board.cancel(id),
    setWorktree: (id, change) => board.setWorktree(id, change),
    giveWorktree: (id, spec) => board.giveWorktree(id, spec),
    list: (filter) => {
      calls.push(filter?.status ?? 'all');
      return board.list(filter);
    },
    get: (id) => {
      calls.push(`get ${id}`);
      return board.get(id);
    },
  };
  return { board: counted, calls };
}

const summary = (cards: readonly { id: number; status: string; worktree: string | null }[]) =>
  [...cards].sort((a, b) => a.id - b.id).map((card) => `${card.id} ${card.status}${card.worktree ? ` ${card.worktree}` : ''}`);

describe("the dashboard's reads of the board", () => {
  it('reads the live tasks at a change, each one that stopped being live on its own, and the whole board only when due after a change', async () => {
    const { board, calls } = countedBoard();
    let now = 0;
    const reader = new UiBoardReader(board, () => now);
    const a = await board.add({ subject: 'a' });
    const b = await board.add({ subject: 'b', blockedBy: [a.id] });
    const done = await board.add({ subject: 'done before' });
    await board.complete(done.id, {}, 'ok');
    expect(summary((await reader.read('fresh')).tasks)).toEqual(['1 pending', '2 pending', '3 completed']);
    expect(calls.splice(0)).toEqual(['all']);

    const claimed = await board.claim(a.id, 'alice');
    await board.complete(a.id, { owner: 'alice', claim: claimed.claim }, 'done');
    const read = await reader.read('change');
    expect(summary(read.tasks)).toEqual(['1 completed', '2 pending', '3 completed']);
    expect(read.tasks.find((card) => card.id === b.id)).toMatchObject({ ready: true, waitingOn: [] });
    expect(calls.splice(0).sort()).toEqual(['get 1', 'in_progress', 'pending']);

    // A live task cancelled is read on its own; the safety re-check never reads the whole board, a change does once due.
    await board.cancel(b.id);
    expect(summary((await reader.read('rescan')).tasks)).toEqual(['1 completed', '2 cancelled', '3 completed']);
    calls.splice(0);
    now = FULL_READ_EVERY_MS;
    await reader.read('rescan');
    expect(calls.splice(0)).not.toContain('all');
    await reader.read('change');
    expect(calls.splice(0)).toEqual(['all']);
    // A finished task the page changed (a merge) is read again at once.
    reader.touch(done.id);
    await reader.read('change');
    expect(calls.splice(0).sort()).toEqual(['get 3', 'in_progress', 'pending']);
  });
});
