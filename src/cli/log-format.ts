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

/** One pino JSON line as `date time zone LEVEL who: message key=value ...`; other lines as they are. */
export function formatLogLine(line: string): string {
  const entry = parseLogLine(line);
  return entry ? formatLogEntry(entry) : line;
}

export function formatLogEntry(entry: LogEntry): string {
  const { fields } = entry;
  const time = entry.time === null ? '' : formatLogTime(entry.time);
  const level = LEVELS[entry.level] ?? String(entry.level);
  const extra = Object.entries(fields)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${time} ${level.padEnd(5)} ${entry.who ? `${entry.who}: ` : ''}${entry.msg}${extra ? `  ${extra}` : ''}`;
}
