import type { LogFn } from 'pino';

/**
 * What teamd's code logs through: pino's logger, narrowed to the methods we use. A pino logger is
 * one (src/log/logger.ts); so is silentLogger, which needs no pino.
 */
export interface Logger {
  fatal: LogFn;
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}
