import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import type { TeamStore } from '../contracts/team-store.js';

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
  /** Which part of teamd opens it (`daemon`, a teammate's name; default `command`): its connections' name in pg_stat_activity. */
  readonly part?: string;
  /** Brings a PostgreSQL store's schema up to date first (the daemon and teamd store init do). */
  readonly migrate?: boolean;
  /**
   * Where a PostgreSQL store's changes are heard when not on a connection of this process's own:
   * a teammate hears of its messages from its daemon (teammate/relayed-events.ts), so a host
   * keeps one listening connection however many teammates it runs.
   */
  readonly listen?: TeamStore['listen'];
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
