import type { LogFn } from 'pino';

/**
 * What teamd's code logs through: pino's logger, narrowed to the methods we use. A pino logger is
 * one (src/logger.ts); so is silentLogger, which needs no pino.
 */
export interface Logger {
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

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
