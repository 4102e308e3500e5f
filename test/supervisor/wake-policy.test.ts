import { describe, expect, it } from 'vitest';
import type { Member } from '../../src/contracts/roster.js';
import { chooseWakeUps } from '../../src/supervisor/wake-policy.js';

const member = (name: string): Member => ({ name, role: 'coder', status: 'asleep' });
const asleep = ['alice', 'bob', 'carol'].map(member);

describe('chooseWakeUps', () => {
  it('wakes nobody when there is no mail, no own work and no spare ready task', () => {
    expect(chooseWakeUps({ asleep, withUnread: new Set(), withOpenTask: new Set(), readyTasks: 2, awakeAvailable: 2 })).toEqual([]);
  });

  it('wakes members with mail or their own open task first', () => {
    expect(chooseWakeUps({ asleep, withUnread: new Set(['carol']), withOpenTask: new Set(['bob']), readyTasks: 0, awakeAvailable: 0 })).toEqual([
      'bob',
      'carol',
    ]);
  });

  it('wakes as many others as there are ready tasks nobody awake can take', () => {
    expect(chooseWakeUps({ asleep, withUnread: new Set(), withOpenTask: new Set(), readyTasks: 3, awakeAvailable: 1 })).toEqual(['alice', 'bob']);
    expect(chooseWakeUps({ asleep, withUnread: new Set(['carol']), withOpenTask: new Set(), readyTasks: 2, awakeAvailable: 0 })).toEqual(['carol', 'alice']);
  });

  it('never wakes a member for tasks it declined alone; mail still wakes it', () => {
    const gaveUp = [{ ...member('alice'), declined: [7] }, member('bob')];
    const input = { asleep: gaveUp, withUnread: new Set<string>(), withOpenTask: new Set<string>(), readyTasks: 1, awakeAvailable: 0 };
    expect(chooseWakeUps({ ...input, readyIds: [7] })).toEqual(['bob']);
    expect(chooseWakeUps({ ...input, readyIds: [7, 8], readyTasks: 2 })).toEqual(['alice', 'bob']);
    expect(chooseWakeUps({ ...input, asleep: [gaveUp[0]!], readyIds: [7], withUnread: new Set(['alice']) })).toEqual(['alice']);
  });
});
