import { describe, expect, it } from 'vitest';
import { WorkBells } from '../../src/supervisor/work-bells.js';

function bells(names: string[], clock = { now: 0 }): WorkBells {
  const chosen = new WorkBells(() => clock.now);
  for (const name of names) {
    chosen.reported(name, 'idle');
    clock.now += 1;
  }
  return chosen;
}

describe('WorkBells', () => {
  it('rings one idle teammate per ready task, the longest idle first, never more than there are tasks', () => {
    const b = bells(['alice', 'bob', 'carol']);
    expect(b.choose([7])).toEqual([{ name: 'alice', task: 7 }]);
    // alice has not answered yet: she is on her way to task 7, so nobody else is rung for it.
    expect(b.choose([7])).toEqual([]);
    expect(b.choose([7, 8])).toEqual([{ name: 'bob', task: 8 }]);
  });

  it('rings nobody while everyone is working, and counts bells not yet answered', () => {
    const b = bells(['alice', 'bob']);
    b.reported('alice', 'working');
    b.reported('bob', 'working');
    expect(b.choose([1, 2])).toEqual([]);
    b.reported('bob', 'idle');
    expect(b.choose([1, 2])).toEqual([{ name: 'bob', task: 1 }]);
    expect(b.inFlight()).toBe(1);
    expect(b.available()).toBe(0);
  });

  it('never rings the same teammate twice for the same task: one that looked and left it is not rung in a loop', () => {
    const b = bells(['alice']);
    expect(b.choose([5])).toEqual([{ name: 'alice', task: 5 }]);
    b.reported('alice', 'idle'); // answered: woke, looked, did not take 5 (it gave it up before)
    expect(b.choose([5])).toEqual([]);
    // Another ready task is another matter.
    expect(b.choose([5, 6])).toEqual([{ name: 'alice', task: 6 }]);
    // Once 5 was taken (no longer ready) and comes back, it may be offered again.
    b.reported('alice', 'idle');
    expect(b.choose([6])).toEqual([]);
    expect(b.choose([5])).toEqual([{ name: 'alice', task: 5 }]);
  });

  it('a bell not answered within 5 s counts as lost, and a teammate that exited is never rung', () => {
    const clock = { now: 0 };
    const b = bells(['alice', 'bob'], clock);
    expect(b.choose([1])).toEqual([{ name: 'alice', task: 1 }]);
    clock.now += 5_001;
    expect(b.choose([1])).toEqual([{ name: 'bob', task: 1 }]);
    b.gone('bob');
    b.gone('alice');
    expect(b.choose([1, 2])).toEqual([]);
  });

  it('a task meant for a role goes to an idle teammate of that role first, else to anyone', () => {
    const b = bells(['alice', 'bob', 'carol']);
    const roles: Record<string, string> = { alice: 'coder', bob: 'tester', carol: 'tester' };
    const roleOf = (name: string): string | undefined => roles[name];
    expect(
      b.choose(
        [
          { id: 1, role: 'tester' },
          { id: 2, role: 'writer' },
        ],
        roleOf,
      ),
    ).toEqual([
      { name: 'bob', task: 1 },
      { name: 'alice', task: 2 },
    ]);
  });
});
