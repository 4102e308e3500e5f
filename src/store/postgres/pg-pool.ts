import net from 'node:net';
import pg from 'pg';
import type { Logger } from '../../log/logger.js';
import { redactUrl } from '../store-setting.js';

/** How long a connection attempt may take before the store counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The bounds every teamd session runs under (docs/stores.md, "Timing"), each shorter than the
 * default host lease (30 s): a lock waited for at most LOCK_TIMEOUT_MS (then the statement fails
 * and is tried again later), a statement at most STATEMENT_TIMEOUT_MS, a transaction left idle by
 * a paused or vanished client is ended by the server after IDLE_IN_TRANSACTION_MS (its locks
 * freed), and TCP keepalives find a dead peer instead of the system's two hours.
 */
export const SESSION_BOUNDS = {
  lockTimeoutMs: 5_000,
  statementTimeoutMs: 20_000,
  idleInTransactionMs: 25_000,
  keepAliveDelayMs: 10_000,
  /** This side's wait for an answer: past it a query fails here, the database unreachable (a cut link answers nothing, ever). */
  queryTimeoutMs: 25_000,
} as const;

/** A heartbeat's wait for an answer: a beat that cannot land within it is a failed beat, not a hung one. */
export const BEAT_TIMEOUT_MS = 5_000;

/**
 * The sockets of one store's sessions, so that closing the store can end them: a query waiting on
 * a dead link (no answer, no TCP error) would otherwise hold its process for the query timeout.
 */
export class SessionSockets {
  private readonly open = new Set<net.Socket>();

  /** pg's `stream` option: each connection's socket, made here and forgotten once closed. */
  readonly stream = (): net.Socket => {
    const socket = new net.Socket();
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    return socket;
  };

  /** Ends every session at once; their queries fail as the store unreachable. */
  destroyAll(): void {
    for (const socket of this.open) socket.destroy();
    this.open.clear();
  }
}

/** How a session presents itself: its wait for answers, and its name in pg_stat_activity (`teamd <part>`). */
export interface SessionOptions {
  /** Where its socket comes from (a store's, to end them all on close); pg's own otherwise. */
  readonly sockets?: SessionSockets;
  readonly queryTimeoutMs?: number;
  /** Which part of teamd holds it, for pg_stat_activity's application_name (`teamd alice (team@host)`). */
  readonly part?: string;
}

/** The connection settings of every teamd session: the URL, the connect timeout, the bounds, its name. */
export function sessionConfig(url: string, options: SessionOptions = {}): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: options.part ? `teamd ${options.part}`.slice(0, 63) : 'teamd',
    ...(options.sockets ? { stream: options.sockets.stream } : {}),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: options.queryTimeoutMs ?? SESSION_BOUNDS.queryTimeoutMs,
    lock_timeout: SESSION_BOUNDS.lockTimeoutMs,
    statement_timeout: SESSION_BOUNDS.statementTimeoutMs,
    idle_in_transaction_session_timeout: SESSION_BOUNDS.idleInTransactionMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: SESSION_BOUNDS.keepAliveDelayMs,
  };
}

/**
 * A pool of connections to a PostgreSQL store, as every part of teamd opens one. An idle
 * connection the server drops emits 'error' on the pool: logged here, since without a listener
 * it would end the process. allowExitOnIdle: a command ends when its work is done, without
 * waiting for idle connections to time out.
 */
export function createPool(url: string, max: number, logger: Logger, options: SessionOptions = {}): pg.Pool {
  const pool = new pg.Pool({ ...sessionConfig(url, options), max, idleTimeoutMillis: 30_000, allowExitOnIdle: true });
  pool.on('error', (error) => logger.warn({ err: error, store: redactUrl(url) }, 'a pooled store connection failed; it is replaced on next use'));
  return pool;
}

/**
 * One connection of its own (the listener's), connected, with an 'error' listener from before its
 * first await: a database that goes away while it connects or before its owner listens would
 * otherwise end the process with an unhandled 'error' event.
 */
export async function connectClient(url: string, logger: Logger, options: SessionOptions = {}): Promise<pg.Client> {
  const client = new pg.Client(sessionConfig(url, options));
  client.on('error', (error) => logger.debug({ err: error, store: redactUrl(url) }, 'a store connection failed'));
  await client.connect();
  return client;
}
