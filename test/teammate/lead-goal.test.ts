import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/model/model-errors.js';
import type { AfterUnit, UnitEnd } from '../../src/teammate/after-unit.js';
import { decideForGoal, type GoalView } from '../../src/teammate/lead-goal.js';

const endTurn: UnitEnd = { kind: 'turn_end', reason: 'end_turn' };
const stopped: UnitEnd = { kind: 'turn_end', reason: 'stopped' };
const nothing: AfterUnit = { action: 'nothing' };
const stalled: GoalView = { id: 'g1', stalled: 'no task has been created for it' };
const underWay: GoalView = { id: 'g1', stalled: null };
const fresh = { reminders: 0, reported: false };

describe('decideForGoal', () => {
  it('no goal being run: nothing, whatever happened', () => {
    expect(decideForGoal({ action: 'unusable', reason: 'x' }, endTurn, null, fresh)).toEqual({ action: 'none' });
    expect(decideForGoal(nothing, endTurn, null, fresh)).toEqual({ action: 'none' });
  });

  it('a turn ended with the goal stalled: two reminders, then the person is told', () => {
    expect(decideForGoal(nothing, endTurn, stalled, fresh)).toEqual({ action: 'remind' });
    expect(decideForGoal(nothing, endTurn, stalled, { reminders: 1, reported: false })).toEqual({ action: 'remind' });
    expect(decideForGoal(nothing, endTurn, stalled, { reminders: 2, reported: false })).toEqual({
      action: 'give-up',
      why: 'I ended my turn 3 times with nothing under way for it (no task has been created for it)',
    });
  });

  it('not stalled: something is under way, a question is with the person, or the unit was stopped', () => {
    expect(decideForGoal(nothing, endTurn, underWay, fresh)).toEqual({ action: 'none' });
    expect(decideForGoal(nothing, endTurn, stalled, { reminders: 0, reported: true })).toEqual({ action: 'none' });
    expect(decideForGoal(nothing, stopped, stalled, fresh)).toEqual({ action: 'none' });
    expect(decideForGoal({ action: 'outage', reason: 'x' }, endTurn, stalled, fresh)).toEqual({ action: 'none' });
  });

  it('a refusal or a failed call ends a stalled goal, not one under way; a lost key or budget ends it always', () => {
    const refused: AfterUnit = { action: 'refused', text: 'no' };
    expect(decideForGoal(refused, endTurn, stalled, fresh)).toEqual({ action: 'give-up', why: 'the model refused: no' });
    expect(decideForGoal(refused, endTurn, underWay, fresh)).toEqual({ action: 'none' });
    const fail: AfterUnit = { action: 'fail', error: new ModelError('bad_request', 'bad'), freshConversation: true };
    expect(decideForGoal(fail, endTurn, stalled, fresh)).toEqual({ action: 'give-up', why: 'the model call failed: bad' });
    expect(decideForGoal(fail, endTurn, underWay, fresh)).toEqual({ action: 'none' });
    expect(decideForGoal({ action: 'unusable', reason: 'key refused' }, endTurn, underWay, fresh)).toEqual({
      action: 'give-up',
      why: 'the model cannot be used (key refused)',
    });
    expect(decideForGoal({ action: 'budget-spent' }, endTurn, underWay, fresh)).toEqual({ action: 'give-up', why: 'my token budget is spent' });
  });
});
