/** A teammate waiting out a model outage that outlasted the SDK's retries. */
export interface ModelBackoff {
  /** Failed attempts in a row (the wait doubles with each). */
  readonly failures: number;
  /** When it may call the model again (ms since the epoch). */
  readonly until: number;
  readonly reason: string;
}

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * The next wait: base, doubling per failure in a row, capped — seconds growing to minutes by
 * default; never shorter than the API asked for (`retryAfterMs`, its retry-after header), which
 * the cap does not shorten: calling sooner only earns another refusal.
 */
export function nextBackoff(previous: ModelBackoff | null, reason: string, now: number, policy: BackoffPolicy, retryAfterMs = 0): ModelBackoff {
  const failures = (previous?.failures ?? 0) + 1;
  const wait = Math.max(retryAfterMs, Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(failures - 1, 30)));
  return { failures, until: now + wait, reason };
}
