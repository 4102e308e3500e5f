import { describe, expect, it } from 'vitest';
import type { Readiness } from '../../src/contracts/board-types.js';
import type { Task } from '../../src/contracts/task.js';
import { cancelTask, claimTask, completeTask, failTask, releaseTask, updateBlockers } from '../../src/domain/transitions.js';
import { TeamdError } from '../../src/errors.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const READY: Readiness = { ready: true, stuck: false, waitingOn: [], stuckOn: [] };

function task(overrides: Partial<Task> = {}): Task {
  return {
    id: 7,
    subject: 'write the parser',
    description: '',
    status: 'pending',
    owner: null,
    blockedBy: [],
    claim: 0,
    rev: 0,
    createdAt: T0,
    updatedAt: T0,
    claimedAt: null,
    completedAt: null,
    result: null,
    ...overrides,
  };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof TeamdError) return error.code;
    throw error;
  }
  return undefined;
}

describe('claimTask', () => {
  it('moves a ready task to in_progress, sets the owner and bumps the claim number', () => {
    expect(claimTask(task({ claim: 4 }), 'alice', READY, T1)).toMatchObject({
      status: 'in_progress',
      owner: 'alice',
      claim: 5,
      claimedAt: T1,
      updatedAt: T1,
    });
  });

  it('refuses a task that is owned, finished, or waiting on blockers', () => {
    const inProgress = task({ status: 'in_progress', owner: 'bob', claim: 1 });
    expect(codeOf(() => claimTask(inProgress, 'alice', READY, T1))).toBe('NOT_READY');
    expect(codeOf(() => claimTask(task({ status: 'completed' }), 'alice', READY, T1))).toBe('NOT_READY');
    const waiting: Readiness = { ready: false, stuck: false, waitingOn: [3], stuckOn: [] };
    expect(codeOf(() => claimTask(task(), 'alice', waiting, T1))).toBe('NOT_READY');
  });
});

describe('finishing a task', () => {
  const mine = task({ status: 'in_progress', owner: 'alice', claim: 3, claimedAt: T0 });

  it('lets the owner complete it with a result, and fail it with a reason', () => {
    expect(completeTask(mine, { owner: 'alice', claim: 3 }, 'done: 3 files', T1)).toMatchObject({
      status: 'completed',
      owner: 'alice',
      result: 'done: 3 files',
      completedAt: T1,
    });
    expect(failTask(mine, { owner: 'alice' }, 'exit 1', T1)).toMatchObject({ status: 'failed', result: 'exit 1' });
  });

  it("refuses to complete or fail someone else's task", () => {
    expect(codeOf(() => completeTask(mine, { owner: 'bob' }, null, T1))).toBe('NOT_OWNER');
    expect(codeOf(() => failTask(mine, { owner: 'bob' }, 'no', T1))).toBe('NOT_OWNER');
  });

  it('refuses a write that presents an older claim number (fencing)', () => {
    expect(codeOf(() => completeTask(mine, { owner: 'alice', claim: 2 }, null, T1))).toBe('STALE_CLAIM');
    expect(codeOf(() => releaseTask(mine, { claim: 2 }, T1))).toBe('STALE_CLAIM');
  });

  it('lets the lead (no owner given) finish a pending task, but an owner only its in-progress one', () => {
    expect(completeTask(task(), {}, null, T1).status).toBe('completed');
    expect(codeOf(() => completeTask(task(), { owner: 'alice' }, null, T1))).toBe('INVALID_TRANSITION');
  });

  it('never reopens a completed task by finishing it again', () => {
    const done = completeTask(mine, { owner: 'alice' }, null, T1);
    expect(codeOf(() => completeTask(done, {}, null, T1))).toBe('INVALID_TRANSITION');
    expect(codeOf(() => failTask(done, {}, 'late', T1))).toBe('INVALID_TRANSITION');
    expect(codeOf(() => cancelTask(done, T1))).toBe('INVALID_TRANSITION');
    expect(codeOf(() => releaseTask(done, {}, T1))).toBe('INVALID_TRANSITION');
  });
});

describe('release, cancel and blockers', () => {
  it('release puts an in-progress or failed task back: pending, no owner, claim number kept', () => {
    const released = releaseTask(task({ status: 'in_progress', owner: 'alice', claim: 2, claimedAt: T0 }), {}, T1);
    expect(released).toMatchObject({ status: 'pending', owner: null, claim: 2, claimedAt: null });
    const retried = releaseTask(task({ status: 'failed', owner: 'alice', claim: 2, result: 'exit 1', completedAt: T0 }), {}, T1);
    expect(retried).toMatchObject({ status: 'pending', owner: null, result: null, completedAt: null });
    expect(codeOf(() => releaseTask(task(), {}, T1))).toBe('INVALID_TRANSITION');
  });

  it('a re-claim after release gets a higher claim number, so the old holder is fenced off', () => {
    const first = claimTask(task(), 'alice', READY, T0);
    const second = claimTask(releaseTask(first, {}, T1), 'alice', READY, T1);
    expect(second.claim).toBe(first.claim + 1);
    expect(codeOf(() => completeTask(second, { owner: 'alice', claim: first.claim }, null, T1))).toBe('STALE_CLAIM');
  });

  it('cancel works on pending and in-progress tasks', () => {
    expect(cancelTask(task(), T1).status).toBe('cancelled');
    expect(cancelTask(task({ status: 'in_progress', owner: 'bob', claim: 1 }), T1).status).toBe('cancelled');
  });

  it('blockers can only be changed while the task is pending', () => {
    expect(updateBlockers(task(), [1, 2], T1).blockedBy).toEqual([1, 2]);
    expect(codeOf(() => updateBlockers(task({ status: 'in_progress', owner: 'a', claim: 1 }), [1], T1))).toBe('INVALID_TRANSITION');
  });
});
