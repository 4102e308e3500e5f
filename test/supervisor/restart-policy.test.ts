import { describe, expect, it } from 'vitest';
import {
  decideRestart,
  DEFAULT_RESTART_POLICY,
  DISK_FULL_EXIT_CODE,
  FRESH_HISTORY,
  type ExitInfo,
  type RestartHistory,
} from '../../src/supervisor/restart-policy.js';

const policy = {
  ...DEFAULT_RESTART_POLICY,
  minUptimeMs: 1000,
  maxUnstableRestarts: 3,
  initialBackoffMs: 100,
  backoffFactor: 1.5,
  maxBackoffMs: 300,
  diskFullWaitMs: 1000,
  diskFullMaxWaitMs: 5000,
};

function exit(overrides: Partial<ExitInfo> = {}): ExitInfo {
  return { code: 1, signal: null, expected: false, startedAt: 0, exitedAt: 10, ...overrides };
}

describe('decideRestart', () => {
  it('does not restart a normal exit or one the supervisor asked for', () => {
    expect(decideRestart(FRESH_HISTORY, exit({ code: 0 }), policy).action).toBe('none');
    expect(decideRestart(FRESH_HISTORY, exit({ code: null, signal: 'SIGTERM', expected: true }), policy).action).toBe('none');
  });

  it('restarts crashes in quick succession with growing, capped backoff, then gives up', () => {
    let history: RestartHistory = FRESH_HISTORY;
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      const decision = decideRestart(history, exit({ signal: 'SIGKILL', code: null }), policy);
      expect(decision.action).toBe('restart');
      if (decision.action === 'restart') delays.push(decision.afterMs);
      history = decision.history;
    }
    expect(delays).toEqual([100, 150, 225]);
    const last = decideRestart(history, exit(), policy);
    expect(last.action).toBe('give-up');
    if (last.action === 'give-up') expect(last.reason).toMatch(/crashed 4 times in a row.*exit code 1/);
  });

  it('caps the backoff', () => {
    const decision = decideRestart({ unstableRestarts: 1, lastBackoffMs: 250 }, exit(), policy);
    expect(decision).toMatchObject({ action: 'restart', afterMs: 300 });
  });

  it('a crash after a stable run restarts at once and forgets earlier trouble', () => {
    const decision = decideRestart({ unstableRestarts: 3, lastBackoffMs: 300 }, exit({ startedAt: 0, exitedAt: 5000 }), policy);
    expect(decision).toEqual({ action: 'restart', afterMs: 100, history: { unstableRestarts: 0, lastBackoffMs: 100 } });
  });

  it('exits for a full disk are waited out longer each time, capped, and never given up on', () => {
    let history: RestartHistory = FRESH_HISTORY;
    const waits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const decision = decideRestart(history, exit({ code: DISK_FULL_EXIT_CODE }), policy);
      expect(decision).toMatchObject({ action: 'restart', diskFull: true });
      if (decision.action === 'restart') waits.push(decision.afterMs);
      history = decision.history;
    }
    expect(waits.slice(0, 5)).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(waits.at(-1)).toBe(5000);
  });

  it('a full disk between crashes neither counts as one nor forgets them', () => {
    let history = decideRestart(FRESH_HISTORY, exit(), policy).history;
    history = decideRestart(history, exit(), policy).history;
    history = decideRestart(history, exit({ code: DISK_FULL_EXIT_CODE }), policy).history;
    expect(decideRestart(history, exit(), policy).action).toBe('restart');
    const fourth = decideRestart(decideRestart(history, exit(), policy).history, exit(), policy);
    expect(fourth.action).toBe('give-up');
    // And the next full disk starts from the first wait again.
    expect(decideRestart(decideRestart(history, exit(), policy).history, exit({ code: DISK_FULL_EXIT_CODE }), policy)).toMatchObject({ afterMs: 1000 });
  });
});
