import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** A log file (created with its folder), a stream, or nothing for a silent logger. */
  readonly destination?: string | DestinationStream;
  /** A second stream that gets every line too (the daemon in the foreground: stdout, for journald). */
  readonly tee?: DestinationStream;
  readonly level?: string;
  readonly bindings?: Record<string, unknown>;
}

const REDACT = ['apiKey', '*.apiKey', 'headers.authorization', 'headers["x-api-key"]', 'ANTHROPIC_API_KEY'];

export function createLogger(options: LoggerOptions = {}): Logger {
  if (options.destination === undefined) return pino({ level: 'silent' });
  const main =
    typeof options.destination === 'string'
      ? pino.destination({ dest: options.destination, mkdir: true, sync: true, mode: 0o600 })
      : options.destination;
  const stream = options.tee ? pino.multistream([{ stream: main }, { stream: options.tee }]) : main;
  const logger = pino({ level: options.level ?? 'info', redact: REDACT, base: { pid: process.pid } }, stream);
  return options.bindings ? logger.child(options.bindings) : logger;
}
