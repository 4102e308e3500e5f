import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** A log file (created with its folder), a stream, or nothing for a silent logger. */
  readonly destination?: string | DestinationStream;
  /** A second stream that gets every line too (the daemon in the foreground: stdout, for journald). */
  readonly tee?: DestinationStream;
  readonly level?: string;
  readonly bindings?: Record<string, unknown>;
  /**
   * Told when the log file cannot be written (a full or read-only disk), once per run of
   * failures, and with null when it can again; lines are kept in memory (up to a bound) and
   * written once the disk takes them. Logging never throws into the caller.
   */
  readonly onWriteHealth?: (error: Error | null) => void;
}

const REDACT = ['apiKey', '*.apiKey', 'headers.authorization', 'headers["x-api-key"]', 'ANTHROPIC_API_KEY'];

/** Log lines held while the disk refuses them; past this, the oldest are dropped. */
const MAX_HELD_BYTES = 8 * 1024 * 1024;

export function createLogger(options: LoggerOptions = {}): Logger {
  if (options.destination === undefined) return pino({ level: 'silent' });
  const main = typeof options.destination === 'string' ? fileDestination(options.destination, options.onWriteHealth ?? (() => {})) : options.destination;
  const stream = options.tee ? pino.multistream([{ stream: main }, { stream: options.tee }]) : main;
  const logger = pino({ level: options.level ?? 'info', redact: REDACT, base: { pid: process.pid } }, stream);
  return options.bindings ? logger.child(options.bindings) : logger;
}

/** A synchronous log file (0600) whose write errors (ENOSPC, EROFS, EIO) are reported, never thrown. */
function fileDestination(file: string, onWriteHealth: (error: Error | null) => void): DestinationStream {
  const boom = pino.destination({ dest: file, mkdir: true, sync: true, mode: 0o600, maxLength: MAX_HELD_BYTES });
  let failing = false;
  const tell = (error: Error | null): void => {
    try {
      onWriteHealth(error);
    } catch {
      // the listener's own output may be on the same failing disk
    }
  };
  const fail = (error: Error): void => {
    if (!failing) tell(error);
    failing = true;
  };
  boom.on('error', fail);
  return {
    write(line: string): void {
      try {
        boom.write(line);
      } catch (error) {
        fail(error as Error);
        return;
      }
      if (failing) {
        failing = false;
        tell(null);
      }
    },
  };
}
