/** How a teammate process ended, as the supervisor saw it. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The supervisor asked it to stop (shutdown, idle timeout reported, daemon stopping). */
  readonly expected: boolean;
  readonly startedAt: number;
  readonly exitedAt: number;
}

/**
 * What a teammate exits with when the disk is full (sysexits' EX_TEMPFAIL): not a fault of its
 * own, so not counted toward giving up; it is started again, less and less often, until it
 * can write again and resumes its task.
 */
export const DISK_FULL_EXIT_CODE = 75;

/**
 * What a teammate exits with when its heap grew past its bound (teammate/heap-bound.ts;
 * sysexits' EX_SOFTWARE): a crash like any other, restarted and counted, but named as what it is.
 */
export const HEAP_EXIT_CODE = 70;

export interface RestartPolicy {
  /** A run shorter than this counts as unstable. */
  readonly minUptimeMs: number;
  /** This many unstable runs in a row and the teammate is marked errored. */
  readonly maxUnstableRestarts: number;
  readonly initialBackoffMs: number;
  readonly backoffFactor: number;
  readonly maxBackoffMs: number;
  /** The first wait after an exit for a full disk; it doubles with each one in a row, up to diskFullMaxWaitMs. */
  readonly diskFullWaitMs: number;
  readonly diskFullMaxWaitMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  minUptimeMs: 5_000,
  maxUnstableRestarts: 5,
  initialBackoffMs: 100,
  backoffFactor: 1.5,
  maxBackoffMs: 15_000,
  diskFullWaitMs: 2_000,
  diskFullMaxWaitMs: 60_000,
};

/** What the supervisor remembers between exits of one teammate. */
export interface RestartHistory {
  readonly unstableRestarts: number;
  readonly lastBackoffMs: number;
  /** Exits for a full disk in a row. */
  readonly diskFullExits?: number;
}

export const FRESH_HISTORY: RestartHistory = { unstableRestarts: 0, lastBackoffMs: 0 };

export type RestartDecision =
  | { readonly action: 'none'; readonly history: RestartHistory }
  | { readonly action: 'restart'; readonly afterMs: number; readonly history: RestartHistory; readonly diskFull?: boolean }
  | { readonly action: 'give-up'; readonly reason: string; readonly history: RestartHistory };

/**
 * Exit code 0 or an exit the supervisor asked for is not a crash. A crash after a stable run
 * restarts quickly and forgets earlier trouble; crashes in quick succession back off (x1.5,
 * capped) and, past the limit, give up. An exit for a full disk waits longer each time in a row
 * (doubling, capped) and never gives up: the disk is not the teammate's fault.
 */
export function decideRestart(history: RestartHistory, exit: ExitInfo, policy: RestartPolicy = DEFAULT_RESTART_POLICY): RestartDecision {
  if (exit.expected || exit.code === 0) return { action: 'none', history: FRESH_HISTORY };
  if (exit.code === DISK_FULL_EXIT_CODE) {
    // Waited out, not counted: crashes before and after it still add up as they would have.
    const diskFullExits = (history.diskFullExits ?? 0) + 1;
    const afterMs = Math.min(policy.diskFullMaxWaitMs, policy.diskFullWaitMs * 2 ** Math.min(diskFullExits - 1, 20));
    return { action: 'restart', afterMs, history: { ...history, diskFullExits }, diskFull: true };
  }
  const uptime = exit.exitedAt - exit.startedAt;
  if (uptime >= policy.minUptimeMs) {
    return { action: 'restart', afterMs: policy.initialBackoffMs, history: { unstableRestarts: 0, lastBackoffMs: policy.initialBackoffMs } };
  }
  const unstableRestarts = history.unstableRestarts + 1;
  if (unstableRestarts > policy.maxUnstableRestarts) {
    return {
      action: 'give-up',
      reason: `crashed ${unstableRestarts} times in a row, each within ${policy.minUptimeMs} ms of starting (last: ${describeExit(exit)})`,
      history: { unstableRestarts, lastBackoffMs: history.lastBackoffMs },
    };
  }
  const afterMs =
    history.lastBackoffMs === 0 ? policy.initialBackoffMs : Math.min(policy.maxBackoffMs, Math.round(history.lastBackoffMs * policy.backoffFactor));
  return { action: 'restart', afterMs, history: { unstableRestarts, lastBackoffMs: afterMs } };
}

export function describeExit(exit: Pick<ExitInfo, 'code' | 'signal'>): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return exit.code === HEAP_EXIT_CODE ? `exit code ${exit.code}: its heap grew past heapMaxBytes` : `exit code ${exit.code}`;
}
