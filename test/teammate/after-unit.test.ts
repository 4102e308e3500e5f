import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/model/model-errors.js';
import { decideAfterUnit, MAX_REMINDERS, type UnitEnd } from '../../src/teammate/after-unit.js';

const owning = { ownsTask: true, awaitingPlan: false, reminders: 0 };
const turn = (reason: Extract<UnitEnd, { kind: 'turn_end' }>['reason'], text?: string): UnitEnd => ({ kind: 'turn_end', reason, text });
const error = (kind: ConstructorParameters<typeof ModelError>[0]): UnitEnd => ({ kind: 'error', error: new ModelError(kind, `${kind} happened`) });

describe('decideAfterUnit', () => {
  it('reminds a model that ends its turn with its task open, then gives the task back', () => {
    expect(decideAfterUnit(turn('end_turn'), owning)).toEqual({ action: 'remind' });
    expect(decideAfterUnit(turn('idle'), { ...owning, reminders: MAX_REMINDERS - 1 })).toEqual({ action: 'remind' });
    expect(decideAfterUnit(turn('end_turn'), { ...owning, reminders: MAX_REMINDERS })).toMatchObject({ action: 'give-back' });
  });

  it('lets a teammate wait for the answer to its plan, and does nothing once the task is no longer its own', () => {
    expect(decideAfterUnit(turn('end_turn'), { ...owning, awaitingPlan: true })).toEqual({ action: 'nothing' });
    expect(decideAfterUnit(turn('end_turn'), { ...owning, ownsTask: false })).toEqual({ action: 'nothing' });
    expect(decideAfterUnit(turn('stopped'), owning)).toEqual({ action: 'nothing' });
  });

  it('a refusal, a spent budget and a step limit each have their own ending', () => {
    expect(decideAfterUnit(turn('refusal', 'no'), owning)).toEqual({ action: 'refused', text: 'no' });
    expect(decideAfterUnit(turn('budget'), owning)).toEqual({ action: 'budget-spent' });
    expect(decideAfterUnit(turn('step_limit'), owning)).toMatchObject({ action: 'give-back' });
    expect(decideAfterUnit(turn('step_limit'), { ...owning, ownsTask: false })).toEqual({ action: 'nothing' });
  });

  it.each(['rate_limited', 'overloaded', 'server', 'connection', 'stalled'] as const)('%s after the retries is an outage: back off, never fail', (kind) => {
    expect(decideAfterUnit(error(kind), owning)).toEqual({ action: 'outage', reason: `${kind} happened` });
  });

  it("an outage carries the API's retry-after when it gave one", () => {
    const limited = new ModelError('rate_limited', 'slow down', { retryAfterMs: 90_000 });
    expect(decideAfterUnit({ kind: 'error', error: limited }, owning)).toEqual({ action: 'outage', reason: 'slow down', retryAfterMs: 90_000 });
  });

  it.each(['auth', 'permission', 'model_not_found'] as const)('%s makes the teammate unusable', (kind) => {
    expect(decideAfterUnit(error(kind), owning)).toMatchObject({ action: 'unusable' });
  });

  it('a refused request fails the task and starts a fresh conversation; a cancelled call is nothing', () => {
    expect(decideAfterUnit(error('bad_request'), owning)).toMatchObject({ action: 'fail', freshConversation: true });
    expect(decideAfterUnit(error('other'), owning)).toMatchObject({ action: 'fail', freshConversation: false });
    expect(decideAfterUnit(error('aborted'), owning)).toEqual({ action: 'nothing' });
    expect(decideAfterUnit({ kind: 'error', error: new Error('boom') }, owning)).toMatchObject({ action: 'fail', freshConversation: false });
  });
});

describe('nextBackoff', () => {
  it('doubles from the base per failure in a row, up to the cap', async () => {
    const { nextBackoff } = await import('../../src/teammate/model-backoff.js');
    const policy = { baseMs: 5_000, maxMs: 300_000 };
    let backoff = nextBackoff(null, 'x', 0, policy);
    const waits = [backoff.until];
    for (let i = 0; i < 8; i++) {
      backoff = nextBackoff(backoff, 'x', 0, policy);
      waits.push(backoff.until);
    }
    expect(waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it("never waits less than the API's retry-after, even past the cap", async () => {
    const { nextBackoff } = await import('../../src/teammate/model-backoff.js');
    const policy = { baseMs: 5_000, maxMs: 300_000 };
    expect(nextBackoff(null, 'x', 0, policy, 90_000).until).toBe(90_000);
    expect(nextBackoff(null, 'x', 0, policy, 1_000).until).toBe(5_000);
    expect(nextBackoff(null, 'x', 0, policy, 600_000).until).toBe(600_000);
  });
});
