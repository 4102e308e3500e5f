import pg from 'pg';
import type { Logger } from '../../log/logger.js';
import { redactUrl } from '../store-setting.js';

/** How long a connection attempt may take before the store counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A pool of connections to a PostgreSQL store, as every part of teamd opens one. An idle
 * connection the server drops emits 'error' on the pool: logged here, since without a listener
 * it would end the process. allowExitOnIdle: a command ends when its work is done, without
 * waiting for idle connections to time out.
 */
export function createPool(url: string, max: number, logger: Logger): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, idleTimeoutMillis: 30_000, allowExitOnIdle: true });
  pool.on('error', (error) => logger.warn({ err: error, store: redactUrl(url) }, 'a pooled store connection failed; it is replaced on next use'));
  return pool;
}
