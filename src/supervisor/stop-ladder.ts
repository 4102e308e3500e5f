import type { ChildProcess } from 'node:child_process';

export type StopRung = 'already-exited' | 'ipc' | 'sigterm' | 'sigkill';

export interface LadderTimings {
  /** How long to wait after asking over IPC. */
  readonly ipcGraceMs: number;
  /** How long to wait after SIGTERM before SIGKILL. */
  readonly termGraceMs: number;
}

export const DEFAULT_LADDER: LadderTimings = { ipcGraceMs: 10_000, termGraceMs: 5_000 };

/** Total time the ladder may take, plus a margin: what a service manager's stop timeout must exceed. */
export function ladderBudgetMs(timings: LadderTimings): number {
  return timings.ipcGraceMs + timings.termGraceMs + 1_000;
}

/**
 * Stops a child: ask it over IPC, wait; SIGTERM, wait; SIGKILL. Resolves with the rung that
 * ended it once the process has really exited. `skipIpc` starts at SIGTERM (e.g. --force).
 */
export async function stopChild(
  child: ChildProcess,
  ask: () => void,
  timings: LadderTimings = DEFAULT_LADDER,
  options: { skipIpc?: boolean } = {},
): Promise<StopRung> {
  if (hasExited(child)) return 'already-exited';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (!options.skipIpc && child.connected) {
    try {
      ask();
    } catch {
      // The channel closed under us: go on to the signals.
    }
    if (await settlesWithin(exited, timings.ipcGraceMs)) return 'ipc';
  }
  child.kill('SIGTERM');
  if (await settlesWithin(exited, timings.termGraceMs)) return 'sigterm';
  child.kill('SIGKILL');
  await exited;
  return 'sigkill';
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Whether the promise settles within ms. */
export async function settlesWithin(done: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([done.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
