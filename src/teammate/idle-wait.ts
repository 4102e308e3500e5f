import type { Doorbell } from '../watch/doorbell.js';

/**
 * Sleeps until the doorbell rings ('work'), or until the teammate has been idle for timeoutMs
 * since `idleSince` ('timeout'; 0 = never), or the stop signal aborts ('work': the caller
 * sees the signal). Never polls.
 */
export async function waitForWork(bell: Doorbell, stop: AbortSignal, idleSince: number, timeoutMs: number): Promise<'work' | 'timeout'> {
  if (timeoutMs === 0) {
    await bell.wait(stop);
    return 'work';
  }
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), Math.max(0, idleSince + timeoutMs - Date.now()));
  try {
    const reason = await bell.wait(AbortSignal.any([stop, timer.signal]));
    return reason === 'aborted' && timer.signal.aborted && !stop.aborted ? 'timeout' : 'work';
  } finally {
    clearTimeout(timeout);
  }
}
