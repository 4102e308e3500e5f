import type { LogEntry } from '../logs/log-entry.js';
import { parseLogLine } from '../logs/log-entry.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component', 'teammate']);

/** A log time in the reader's zone, with the date and the zone's offset: 2026-11-26 17:10:03.123 +01:00. */
export function formatLogTime(ms: number): string {
  const at = new Date(ms);
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  const offset = -at.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)} ${zone}`;
}

/** The most of one value the human format shows on a record's line (journalctl-like); --full shows all. */
export const FIELD_CHARS = 160;

/** One pino JSON line as `date time zone LEVEL who: message key=value ...`; other lines as they are. */
export function formatLogLine(line: string): string {
  const entry = parseLogLine(line);
  return entry ? formatLogEntry(entry) : line;
}

/**
 * A record on one line: a value with a line break or longer than FIELD_CHARS shows its start and
 * how much there was (`… [245 lines, 12.0 KB]`); `full` shows every value whole.
 */
export function formatLogEntry(entry: LogEntry, options: { readonly full?: boolean } = {}): string {
  const { fields } = entry;
  const full = options.full === true;
  const time = entry.time === null ? '' : formatLogTime(entry.time);
  const level = LEVELS[entry.level] ?? String(entry.level);
  const extra = Object.entries(fields)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${shown(typeof value === 'string' ? value : JSON.stringify(value), full)}`)
    .join(' ');
  return `${time} ${level.padEnd(5)} ${entry.who ? `${entry.who}: ` : ''}${shown(entry.msg, full)}${extra ? `  ${extra}` : ''}`;
}

function shown(value: string, full: boolean): string {
  if (full) return value;
  const lines = value.split('\n');
  if (lines.length === 1 && value.length <= FIELD_CHARS) return value;
  const start = lines[0]!.slice(0, FIELD_CHARS).trimEnd();
  const bytes = Buffer.byteLength(value);
  const size = bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
  return `${start}… [${lines.length > 1 ? `${lines.length} lines, ` : ''}${size}]`;
}
