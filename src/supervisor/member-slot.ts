import type { ChildProcess } from 'node:child_process';
import type { MemberStatus } from '../contracts/roster.js';
import { FRESH_HISTORY, type RestartHistory } from './restart-policy.js';

/** The supervisor's record of one teammate's process: the child, its restarts, and how its exit is to be read. */
export interface MemberSlot {
  child: ChildProcess | null;
  startedAt: number;
  history: RestartHistory;
  restartTimer: NodeJS.Timeout | null;
  /** Set when the exit was asked for or announced: not a crash. */
  expected: MemberStatus | null;
  /** Why it announced it cannot work (the model refused it). */
  problem: string | null;
  exited: Promise<void>;
}

export function newSlot(): MemberSlot {
  return { child: null, startedAt: 0, history: FRESH_HISTORY, restartTimer: null, expected: null, problem: null, exited: Promise.resolve() };
}
