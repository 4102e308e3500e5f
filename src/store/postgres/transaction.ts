import type { Pool, PoolClient } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTeamdError, TeamdError } from '../../errors.js';
import type { Patience } from '../open-store-deps.js';

/** SQLSTATE classes a retry can cure: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 5;

/**
 * Runs `work` in one transaction: committed when it returns, rolled back when it throws. A
 * serialization failure or deadlock is retried a bounded number of times; a lost connection
 * becomes STORE_UNAVAILABLE (the caller's retry policy decides what next).
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, patience?: Patience): Promise<T> {
  return patiently(patience, () => transactionOnce(pool, work));
}

async function transactionOnce<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await connect(pool);
    let broken = false;
    // A checked-out client has no listener of the pool's: a connection lost between two statements
    // would end the process with an unhandled 'error' event. Noted here; the next statement fails.
    const lost = (): void => {
      broken = true;
    };
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      if (attempt < MAX_ATTEMPTS && isRetryable(error)) continue;
      throw storeError(error);
    } finally {
      client.removeListener('error', lost);
      client.release(broken);
    }
  }
}

export async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw storeError(error);
  }
}

function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && RETRYABLE.has(String(error.code));
}

/** Thrown by a transaction's work to roll it back on purpose: it reaches the caller as it is. */
export class Rollback extends Error {}

/** Our own errors pass through; a database or connection error becomes one line naming the store. */
export function storeError(error: unknown): unknown {
  if (error instanceof TeamdError || error instanceof Rollback) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  // Connection-level failures: the socket, DNS, authentication, the server shutting down.
  if (
    /^(ECONN|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|EPIPE|28|57P|08)/.test(code) ||
    /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout/i.test(message)
  ) {
    return new TeamdError('STORE_UNAVAILABLE', `the PostgreSQL store is unreachable: ${message}`, { cause: error });
  }
  // Not the database's: a file of ours (the protocol key, say) that could not be written.
  if (typeof error === 'object' && error !== null && 'syscall' in error && !/^(ECONN|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|EPIPE)/.test(code)) {
    return new TeamdError('IO', message, { cause: error });
  }
  if (/client password must be a string/i.test(message)) {
    return new TeamdError(
      'USAGE',
      'the PostgreSQL store asks for a password and none was given: put it in the URL (postgres://user:PASSWORD@host/db, set through TEAMD_STORE so that ps never shows it), in PGPASSWORD, or in ~/.pgpass',
      { cause: error },
    );
  }
  if (code === '42P01') {
    return new TeamdError('STORE_UNAVAILABLE', `the PostgreSQL store has no teamd tables yet: run teamd store init (${message})`, { cause: error });
  }
  return new TeamdError('IO', `the PostgreSQL store refused a query: ${message}${code ? ` (SQLSTATE ${code})` : ''}`, { cause: error });
}

const FIRST_WAIT_MS = 500;
const MAX_WAIT_STEP_MS = 30_000;

/**
 * Runs `attempt` until it does not fail with STORE_UNAVAILABLE, within the patience. A write
 * whose COMMIT was sent when the connection broke may have been applied: every write teamd
 * retries is either idempotent (a message id, a cursor that only moves forward, a heartbeat) or
 * refused the second time with the board's usual error.
 */
export async function patiently<T>(patience: Patience | undefined, attempt: () => Promise<T>): Promise<T> {
  const deadline = patience ? Date.now() + patience.maxWaitMs : 0;
  let wait = FIRST_WAIT_MS;
  let told = false;
  // Bounded by the deadline and the signal; each round sleeps first, so it never spins.
  for (;;) {
    try {
      const result = await attempt();
      if (told) patience?.logger?.info('the store answers again');
      return result;
    } catch (error) {
      if (!patience || !isTeamdError(error, 'STORE_UNAVAILABLE') || patience.signal?.aborted || Date.now() + wait > deadline) throw error;
      if (!told) patience.logger?.warn({ err: error }, 'the store is unreachable: waiting for it (nothing is failed meanwhile)');
      told = true;
      await sleep(wait, undefined, { signal: patience.signal }).catch(() => undefined);
      wait = Math.min(wait * 2, MAX_WAIT_STEP_MS);
    }
  }
}
