import { describe, expect, it } from 'vitest';
import { assessReadiness, findCycle, type StatusLookup } from '../../src/domain/readiness.js';
import type { TaskStatus } from '../../src/contracts/task.js';

function graph(entries: Record<number, { status: TaskStatus; blockedBy?: number[] }>): StatusLookup {
  return (id) => {
    const entry = entries[id];
    return entry ? { status: entry.status, blockedBy: entry.blockedBy ?? [] } : undefined;
  };
}

const pending = (blockedBy: number[], owner: string | null = null) => ({ status: 'pending' as const, owner, blockedBy });

describe('assessReadiness', () => {
  it('is ready when pending, unowned and every blocker is completed', () => {
    const lookup = graph({ 1: { status: 'completed' }, 2: { status: 'completed' } });
    expect(assessReadiness(pending([1, 2]), lookup)).toEqual({ ready: true, stuck: false, waitingOn: [], stuckOn: [] });
    expect(assessReadiness(pending([]), lookup).ready).toBe(true);
  });

  it('waits on blockers that are not completed yet, without being stuck', () => {
    const lookup = graph({ 1: { status: 'completed' }, 2: { status: 'in_progress' }, 3: { status: 'pending' } });
    expect(assessReadiness(pending([1, 2, 3]), lookup)).toEqual({ ready: false, stuck: false, waitingOn: [2, 3], stuckOn: [] });
  });

  it('is never ready when owned or not pending', () => {
    expect(assessReadiness(pending([], 'alice'), graph({})).ready).toBe(false);
    for (const status of ['in_progress', 'completed', 'failed', 'cancelled'] as const) {
      expect(assessReadiness({ status, owner: null, blockedBy: [] }, graph({})).ready).toBe(false);
    }
  });

  it('reports stuck on a failed or cancelled blocker, also further up the chain', () => {
    const lookup = graph({
      1: { status: 'failed' },
      2: { status: 'pending', blockedBy: [1] },
      3: { status: 'cancelled' },
      4: { status: 'pending', blockedBy: [2, 3] },
    });
    expect(assessReadiness(pending([1]), lookup)).toMatchObject({ ready: false, stuck: true, stuckOn: [1] });
    expect(assessReadiness(pending([4]), lookup)).toMatchObject({ ready: false, stuck: true, stuckOn: [1, 3] });
  });

  it('does not count a blocker in progress as stuck even if it depends on nothing dead', () => {
    const lookup = graph({ 1: { status: 'failed' }, 2: { status: 'in_progress', blockedBy: [1] } });
    expect(assessReadiness(pending([2]), lookup).stuck).toBe(false);
  });

  it('treats a missing blocker as not completed', () => {
    expect(assessReadiness(pending([9]), graph({}))).toMatchObject({ ready: false, waitingOn: [9] });
  });
});

describe('findCycle', () => {
  const edges = (map: Record<number, number[]>) => (id: number) => map[id] ?? [];

  it('finds a direct and an indirect cycle, naming the path', () => {
    expect(findCycle(1, [2], edges({ 2: [1] }))).toEqual([1, 2, 1]);
    expect(findCycle(1, [2], edges({ 2: [3], 3: [4], 4: [1] }))).toEqual([1, 2, 3, 4, 1]);
  });

  it('accepts a diamond, which is not a cycle', () => {
    expect(findCycle(1, [2, 3], edges({ 2: [4], 3: [4], 4: [] }))).toBeNull();
  });

  it('terminates on an existing cycle elsewhere in the graph', () => {
    expect(findCycle(1, [2], edges({ 2: [3], 3: [2] }))).toBeNull();
  });
});
