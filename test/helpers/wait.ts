import { setTimeout as delay } from 'node:timers/promises';

/** Polls a condition until it holds, failing after a deadline. Never a fixed sleep. */
export async function waitFor<T>(probe: () => T | undefined | false | null, what: string, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await delay(10);
  }
}

/** waitFor with a probe that must run a process or do I/O first. */
export async function waitForAsync<T>(probe: () => Promise<T | undefined | false | null>, what: string, deadlineMs = 30_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await delay(50);
  }
}
