import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** A log file (created with its folder), a stream, or nothing for a silent logger. */
  readonly destination?: string | DestinationStream;
  readonly level?: string;
  readonly bindings?: Record<string, unknown>;
}

const REDACT = ['apiKey', '*.apiKey', 'headers.authorization', 'headers["x-api-key"]', 'ANTHROPIC_API_KEY'];

export function createLogger(options: LoggerOptions = {}): Logger {
  if (options.destination === undefined) return pino({ level: 'silent' });
  const stream =
    typeof options.destination === 'string'
      ? pino.destination({ dest: options.destination, mkdir: true, sync: true })
      : options.destination;
  const logger = pino({ level: options.level ?? 'info', redact: REDACT, base: { pid: process.pid } }, stream);
  return options.bindings ? logger.child(options.bindings) : logger;
}
