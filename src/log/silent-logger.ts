import type { LogFn } from 'pino';
import type { Logger } from '../contracts/logger.js';

export type { Logger };

const nothing: LogFn = () => {};

/**
 * A logger that writes nothing, for what has no log (a read-only CLI command). Without pino, which
 * with its streams and worker_threads is ~3 ms of such a command's start.
 */
export const silentLogger: Logger = {
  fatal: nothing,
  error: nothing,
  warn: nothing,
  info: nothing,
  debug: nothing,
  child: () => silentLogger,
};
