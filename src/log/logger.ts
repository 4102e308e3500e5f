import path from 'node:path';
import { pino, type DestinationStream } from 'pino';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { DEFAULT_ROTATION, RotatingFile, type Rotation } from '../fs/rotating-file.js';
import { silentLogger, type Logger } from './silent-logger.js';

export type { Logger } from './silent-logger.js';

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
  /** Size-based rotation of the log file (default: 10 MiB, 5 files kept). */
  readonly rotation?: Rotation;
}

const REDACT = ['apiKey', '*.apiKey', 'headers.authorization', 'headers["x-api-key"]', 'ANTHROPIC_API_KEY'];

/** Log lines held while the disk refuses them; past this, the oldest are dropped. */
const MAX_HELD_BYTES = 8 * 1024 * 1024;

export function createLogger(options: LoggerOptions = {}): Logger {
  if (options.destination === undefined) return silentLogger;
  const main =
    typeof options.destination === 'string'
      ? fileDestination(options.destination, options.onWriteHealth ?? (() => {}), options.rotation ?? DEFAULT_ROTATION)
      : options.destination;
  const stream = options.tee ? pino.multistream([{ stream: main }, { stream: options.tee }]) : main;
  const logger = pino({ level: options.level ?? 'info', redact: REDACT, base: { pid: process.pid } }, stream);
  return options.bindings ? logger.child(options.bindings) : logger;
}

/**
 * A log file (0600, rotated by size) appended with one synchronous write per line, whose write errors (ENOSPC,
 * EROFS, EIO) are reported, never thrown: lines that the disk refuses are held in memory (the
 * oldest dropped past MAX_HELD_BYTES, with a count) and written first once it takes them again.
 */
function fileDestination(file: string, onWriteHealth: (error: Error | null) => void, rotation: Rotation): DestinationStream {
  ensurePrivateDir(path.dirname(file));
  const out = new RotatingFile(file, rotation);
  const held: string[] = [];
  let heldBytes = 0;
  let dropped = 0;
  let failing = false;
  const tell = (error: Error | null): void => {
    try {
      onWriteHealth(error);
    } catch {
      // the listener's own output may be on the same failing disk
    }
  };
  const hold = (line: string): void => {
    held.push(line);
    heldBytes += line.length;
    while (heldBytes > MAX_HELD_BYTES && held.length > 0) {
      heldBytes -= held.shift()!.length;
      dropped++;
    }
  };
  return {
    write(line: string): void {
      hold(line);
      try {
        if (dropped > 0) {
          out.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: `${dropped} log line(s) dropped while the disk refused writes` })}\n`);
          dropped = 0;
        }
        while (held.length > 0) {
          out.write(held[0]!);
          heldBytes -= held.shift()!.length;
        }
      } catch (error) {
        if (!failing) tell(error as Error);
        failing = true;
        return;
      }
      if (failing) {
        failing = false;
        tell(null);
      }
    },
  };
}
