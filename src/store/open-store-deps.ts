import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';

/** What opening a store needs besides its setting (open-store.ts, and each store's own opener). */
export interface OpenStoreDeps {
  readonly paths: StatePaths;
  readonly logger: Logger;
  /** fdatasync each inbox append (file store; default true). */
  readonly durable?: boolean;
  /** Connections one process keeps to a PostgreSQL store (default 4). */
  readonly poolSize?: number;
  /** How long a long-running process waits out an unreachable PostgreSQL store (a command: not at all). */
  readonly patience?: Patience;
  /**
   * Puts the team's protocol key in this host's state folder first (a PostgreSQL store: a query
   * at open). The daemon and commands that sign or send do; a command that only reads does not,
   * so it still answers when the store is down.
   */
  readonly shareKey?: boolean;
  /** Brings a PostgreSQL store's schema up to date first (the daemon and teamd store init do). */
  readonly migrate?: boolean;
}

/**
 * How long a long-running process (a teammate, the daemon) waits for a store that cannot be
 * reached before the error reaches its caller: it retries, backing off from 0.5 s to 30 s, until
 * the store answers, the time is up, or the signal says the process is stopping. A command gets
 * none: it says at once that the store is unreachable.
 */
export interface Patience {
  readonly maxWaitMs: number;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
}
