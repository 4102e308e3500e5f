import { describe, expect, it } from 'vitest';
import { RingTurns } from '../../src/supervisor/ring-turns.js';

const tasks = (...ids: number[]) => ids.map((id) => ({ id, role: null }));

describe('RingTurns: which ready tasks a host rings for at once when several hosts share the board', () => {
  it('rings at once for the tasks whose turn it is, and for the others once they have been ready for the hold', () => {
    let now = 1_000;
    // This host's turn: even ids (two live hosts, this one second in name order would be odd; any rule will do here).
    const turns = new RingTurns(
      (id) => id % 2 === 0,
      () => now,
      100,
    );
    expect(turns.split(tasks(1, 2, 3))).toEqual({ now: tasks(2), dueInMs: 100 });
    now += 60;
    expect(turns.split(tasks(1, 2, 3))).toEqual({ now: tasks(2), dueInMs: 40 });
    now += 40;
    // Still ready after the hold: the host whose turn it was had nobody idle, or is gone.
    expect(turns.split(tasks(1, 3, 5))).toEqual({ now: tasks(1, 3), dueInMs: 100 });
  });

  it('forgets a task once it is no longer ready: ready again later, it is held again', () => {
    let now = 0;
    const turns = new RingTurns(
      () => false,
      () => now,
      100,
    );
    expect(turns.split(tasks(7)).now).toEqual([]);
    now = 50;
    expect(turns.split([])).toEqual({ now: [], dueInMs: null });
    now = 500;
    expect(turns.split(tasks(7))).toEqual({ now: [], dueInMs: 100 });
  });
});
