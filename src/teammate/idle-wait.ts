import type { Bell } from '../contracts/team-store.js';

export type IdleWake = 'work' | 'recheck' | 'timeout';

/**
 * Sleeps until the doorbell rings ('work', or 'recheck' for the slow safety ring), or until the
 * teammate has been idle for timeoutMs since `idleSince` ('timeout'; 0 = never), or the stop
 * signal aborts ('work': the caller sees the signal). Never polls.
 */
export async function waitForWork(bell: Bell, stop: AbortSignal, idleSince: number, timeoutMs: number): Promise<IdleWake> {
  if (timeoutMs === 0) return (await bell.wait(stop)) === 'rescan' ? 'recheck' : 'work';
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), Math.max(0, idleSince + timeoutMs - Date.now()));
  try {
    const reason = await bell.wait(AbortSignal.any([stop, timer.signal]));
    if (reason === 'aborted' && timer.signal.aborted && !stop.aborted) return 'timeout';
    return reason === 'rescan' ? 'recheck' : 'work';
  } finally {
    clearTimeout(timeout);
  }
}
