import { describe, expect, it } from 'vitest';
import { TeamdError } from '../../src/errors.js';
import { codeOf } from '../helpers/errors.js';
import { STORES } from '../helpers/stores.js';

const ids = (tasks: readonly { id: number }[]): number[] => tasks.map((task) => task.id);

// The same tests against every store: what the board promises does not depend on where it lives.
describe.each(STORES)('the board on the $name store', (store) => {
  describe.skipIf(!store.available)('contract', () => {
    it('adds tasks with ascending ids and the contract fields, pending and unclaimed', async () => {
      const { board } = await store.open();
      const first = await board.add({ subject: 'set up', description: 'mkdir src' });
      const second = await board.add({ subject: 'build', blockedBy: [first.id], role: 'coder', createdBy: 'lead' });
      expect([first.id, second.id]).toEqual([1, 2]);
      expect(await board.get(2)).toMatchObject({ id: 2, subject: 'build', status: 'pending', owner: null, blockedBy: [1], claim: 0, rev: 0, role: 'coder' });
      expect((await board.get(2)).ready).toBe(false);
      expect((await board.get(1)).ready).toBe(true);
    });

    it('an add with a key already on the board returns that task, also when two race', async () => {
      const { board } = await store.open();
      const first = await board.add({ subject: 'build', createdBy: 'lead', key: 'goal-1/build' });
      await board.complete(first.id, {}, 'done');
      const again = await board.add({ subject: 'build, said again', createdBy: 'lead', key: 'goal-1/build' });
      expect(again).toMatchObject({ id: first.id, subject: 'build', status: 'completed', createdBy: 'lead', key: 'goal-1/build' });
      const other = await board.add({ subject: 'build', key: 'goal-2/build' });
      expect(other.id).toBe(first.id + 1);
      const racing = await Promise.all([board.add({ subject: 'x', key: 'same' }), board.add({ subject: 'x', key: 'same' })]);
      expect(racing[0].id).toBe(racing[1].id);
      expect((await board.list()).tasks).toHaveLength(3);
    });

    it('lists in numeric order and filters by status, owner and readiness', async () => {
      const { board } = await store.open();
      for (let i = 0; i < 12; i++) await board.add({ subject: `task ${i + 1}` });
      expect(ids((await board.list()).tasks)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      await board.claim(10, 'alice');
      await board.claim(2, 'bob');
      await board.complete(2, { owner: 'bob' }, 'ok');
      expect(ids((await board.list({ status: 'in_progress' })).tasks)).toEqual([10]);
      expect(ids((await board.list({ owner: 'bob' })).tasks)).toEqual([2]);
      expect(ids((await board.list({ status: 'completed' })).tasks)).toEqual([2]);
      expect((await board.list({ ready: true })).tasks).toHaveLength(10);
      expect(ids(await board.ownedBy('alice'))).toEqual([10]);
      expect(await board.ownedBy('bob')).toEqual([]);
    });

    it('counts by status, with the lowest failed tasks first, as the listing does', async () => {
      const { board } = await store.open();
      for (let i = 0; i < 9; i++) await board.add({ subject: `task ${i + 1}` });
      for (const id of [2, 3, 4, 5, 6, 7]) await board.claim(id, 'alice');
      await board.complete(2, { owner: 'alice' }, 'ok');
      for (const id of [7, 3, 5]) await board.fail(id, { owner: 'alice' }, `broke ${id}`);
      await board.cancel(9);
      const counted = await board.counts(2);
      expect(counted.counts).toEqual({ pending: 2, in_progress: 2, completed: 1, failed: 3, cancelled: 1 });
      expect(counted.failed.map((task) => [task.id, task.result])).toEqual([
        [3, 'broke 3'],
        [5, 'broke 5'],
      ]);
      expect(counted.problems).toEqual([]);
      const listed = (await board.list()).tasks;
      for (const [status, n] of Object.entries(counted.counts)) expect(listed.filter((task) => task.status === status)).toHaveLength(n);
    });

    it('refuses unknown blocker ids, naming them, and creates nothing', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      const error = await board.add({ subject: 'b', blockedBy: [1, 5, 9] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TeamdError);
      expect((error as TeamdError).code).toBe('UNKNOWN_BLOCKER');
      expect((error as TeamdError).message).toContain('5, 9');
      expect((await board.list()).tasks).toHaveLength(1);
      expect((await board.add({ subject: 'c' })).id).toBe(2);
    });

    it('refuses a self-edge and a cycle when blockers are changed, and keeps the old blockers', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      await board.add({ subject: 'b', blockedBy: [1] });
      await board.add({ subject: 'c', blockedBy: [2] });
      expect(await codeOf(board.setBlockers(1, [1]))).toBe('DEPENDENCY_CYCLE');
      const error = (await board.setBlockers(1, [3]).catch((e: unknown) => e)) as TeamdError;
      expect(error.code).toBe('DEPENDENCY_CYCLE');
      expect(error.message).toContain('1 -> 3 -> 2 -> 1');
      expect((await board.get(1)).blockedBy).toEqual([]);
      expect((await board.setBlockers(3, [1, 2])).blockedBy).toEqual([1, 2]);
    });

    it('two blocker edits racing can never close a cycle between them', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      await board.add({ subject: 'b' });
      const outcomes = await Promise.allSettled([board.setBlockers(1, [2]), board.setBlockers(2, [1])]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect((refused.reason as TeamdError).code).toBe('DEPENDENCY_CYCLE');
    });

    it('computes readiness from the blockers: completing one makes its dependent ready', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      await board.add({ subject: 'b', blockedBy: [1] });
      expect(ids((await board.list({ ready: true })).tasks)).toEqual([1]);
      expect(await board.readyTasks(10)).toEqual([{ id: 1, role: null }]);
      await board.claim(1, 'alice');
      expect(await board.readyTasks(10)).toEqual([]);
      await board.complete(1, { owner: 'alice' }, 'ok');
      expect(ids((await board.list({ ready: true })).tasks)).toEqual([2]);
      expect((await board.get(2)).waitingOn).toEqual([]);
    });

    it('shows a task whose blocker failed as stuck, transitively, and release gives it another try', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      await board.add({ subject: 'b', blockedBy: [1] });
      await board.add({ subject: 'c', blockedBy: [2] });
      await board.claim(1, 'alice');
      await board.fail(1, { owner: 'alice' }, 'exit 2');
      expect(await board.get(2)).toMatchObject({ ready: false, stuck: true, stuckOn: [1] });
      expect(await board.get(3)).toMatchObject({ ready: false, stuck: true, stuckOn: [1], waitingOn: [2] });
      expect(await board.claimNext('bob')).toBeNull();
      await board.release(1);
      expect((await board.get(2)).stuck).toBe(false);
      expect((await board.claimNext('bob'))?.id).toBe(1);
    });

    it('claims the lowest-id ready task, preferred ids first, skips what it is told, and returns null when nothing is ready', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      await board.add({ subject: 'b', blockedBy: [1] });
      await board.add({ subject: 'c' });
      await board.add({ subject: 'd' });
      expect((await board.claimNext('alice', { prefer: [4] }))?.id).toBe(4);
      expect((await board.claimNext('alice', { skip: new Set([1]) }))?.id).toBe(3);
      expect(await board.claimNext('alice', { skip: new Set([1]) })).toBeNull();
      expect(await board.claimNext('bob')).toMatchObject({ id: 1, owner: 'bob', status: 'in_progress', claim: 1 });
      expect(await board.claimNext('carol')).toBeNull();
      expect(await codeOf(board.claim(2, 'carol'))).toBe('NOT_READY');
      expect(await codeOf(board.claim(1, 'carol'))).toBe('NOT_READY');
    });

    it('fences off a presumed-dead holder: its older claim number is refused after a re-claim', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      const old = await board.claim(1, 'alice');
      await board.release(1);
      const fresh = await board.claim(1, 'alice');
      expect(fresh.claim).toBe(old.claim + 1);
      expect(await codeOf(board.complete(1, { owner: 'alice', claim: old.claim }, 'late'))).toBe('STALE_CLAIM');
      expect((await board.complete(1, { owner: 'alice', claim: fresh.claim }, 'ok')).status).toBe('completed');
      expect(await codeOf(board.complete(1, { owner: 'alice' }, 'again'))).toBe('INVALID_TRANSITION');
    });

    it("refuses to complete or fail someone else's task, an invalid owner name, and an unknown task", async () => {
      const { board } = await store.open();
      await board.add({ subject: 'a' });
      await board.claim(1, 'alice');
      expect(await codeOf(board.complete(1, { owner: 'bob' }))).toBe('NOT_OWNER');
      expect(await codeOf(board.fail(1, { owner: 'bob' }, 'x'))).toBe('NOT_OWNER');
      expect(await codeOf(board.claim(1, '../etc'))).toBe('INVALID_NAME');
      expect(await codeOf(board.get(99))).toBe('TASK_NOT_FOUND');
      expect(await codeOf(board.cancel(99))).toBe('TASK_NOT_FOUND');
      expect(await board.get(1)).toMatchObject({ status: 'in_progress', owner: 'alice' });
    });

    it('refuses oversized and empty text with a clear error and stores nothing', async () => {
      const { board } = await store.open();
      const error = (await board.add({ subject: 'x'.repeat(500) }).catch((e: unknown) => e)) as TeamdError;
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toMatch(/500 characters; the limit is 200/);
      expect(await codeOf(board.add({ subject: '   ' }))).toBe('INVALID_INPUT');
      expect(await codeOf(board.add({ subject: 'two\nlines' }))).toBe('INVALID_INPUT');
      expect((await board.list()).tasks).toEqual([]);
    });

    it('cancels, gives and changes worktrees, and bumps rev on every write', async () => {
      const { board } = await store.open();
      await board.add({ subject: 'Fix the parser' });
      const given = await board.giveWorktree(1, { base: 'main' });
      expect(given.worktree).toMatchObject({ name: '1-fix-the-parser', branch: 'teamd/1-fix-the-parser', base: 'main', state: 'pending' });
      expect(await codeOf(board.giveWorktree(1, { base: 'main' }))).toBe('INVALID_TRANSITION');
      const active = await board.setWorktree(1, (worktree) => ({ ...worktree, state: 'active' }));
      expect(active.worktree?.state).toBe('active');
      expect(active.rev).toBe(2);
      const cancelled = await board.cancel(1);
      expect(cancelled).toMatchObject({ status: 'cancelled', rev: 3 });
      expect(await codeOf(board.cancel(1))).toBe('INVALID_TRANSITION');
    });

    it('16 claimers racing in one process claim each of 60 tasks exactly once', async () => {
      const { board } = await store.open();
      for (let i = 0; i < 60; i++) await board.add({ subject: `task ${i + 1}` });
      const claimed: number[] = [];
      await Promise.all(
        Array.from({ length: 16 }, async (_, racer) => {
          for (let task = await board.claimNext(`racer-${racer}`); task; task = await board.claimNext(`racer-${racer}`)) claimed.push(task.id);
        }),
      );
      expect(claimed.sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect((await board.list({ status: 'in_progress' })).tasks.every((task) => task.claim === 1)).toBe(true);
    });
  });
});
