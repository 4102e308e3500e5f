/** How a teammate process ended, as the supervisor saw it. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The supervisor asked it to stop (shutdown, idle timeout reported, daemon stopping). */
  readonly expected: boolean;
  readonly startedAt: number;
  readonly exitedAt: number;
}

export interface RestartPolicy {
  /** A run shorter than this counts as unstable. */
  readonly minUptimeMs: number;
  /** This many unstable runs in a row and the teammate is marked errored. */
  readonly maxUnstableRestarts: number;
  readonly initialBackoffMs: number;
  readonly backoffFactor: number;
  readonly maxBackoffMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  minUptimeMs: 5_000,
  maxUnstableRestarts: 5,
  initialBackoffMs: 100,
  backoffFactor: 1.5,
  maxBackoffMs: 15_000,
};

/** What the supervisor remembers between exits of one teammate. */
export interface RestartHistory {
  readonly unstableRestarts: number;
  readonly lastBackoffMs: number;
}

export const FRESH_HISTORY: RestartHistory = { unstableRestarts: 0, lastBackoffMs: 0 };

export type RestartDecision =
  | { readonly action: 'none'; readonly history: RestartHistory }
  | { readonly action: 'restart'; readonly afterMs: number; readonly history: RestartHistory }
  | { readonly action: 'give-up'; readonly reason: string; readonly history: RestartHistory };

/**
 * Exit code 0 or an exit the supervisor asked for is not a crash. A crash after a stable run
 * restarts quickly and forgets earlier trouble; crashes in quick succession back off (x1.5,
 * capped) and, past the limit, give up.
 */
export function decideRestart(history: RestartHistory, exit: ExitInfo, policy: RestartPolicy = DEFAULT_RESTART_POLICY): RestartDecision {
  if (exit.expected || exit.code === 0) return { action: 'none', history: FRESH_HISTORY };
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
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}
