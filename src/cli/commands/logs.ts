import fs from 'node:fs';
import { Command } from 'commander';
import { openContext } from '../context.js';
import { untilInterrupted } from '../interrupt.js';
import type { Io } from '../output.js';
import { parseMemberName, parseNonNegativeInt } from '../parsers.js';
import { followLines } from '../../watch/follow-lines.js';
import { withCommonOptions, type CommonOptions } from './common.js';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'component', 'teammate']);

/** One pino JSON line as `HH:MM:SS LEVEL who: message key=value ...`; other lines as they are. */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const who = (entry.teammate ?? entry.component ?? '') as string;
  const extra = Object.entries(entry)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${time} ${level.padEnd(5)} ${who ? `${who}: ` : ''}${typeof entry.msg === 'string' ? entry.msg : JSON.stringify(entry.msg ?? '')}${extra ? `  ${extra}` : ''}`;
}

export function logsCommand(io: Io): Command {
  return withCommonOptions(new Command('logs').description('show the daemon log, or a teammate log (pino JSON, made readable)'))
    .argument('[name]', 'a teammate (default: the daemon)', parseMemberName)
    .option('--lines <n>', 'how many of the last lines to show', parseNonNegativeInt, 100)
    .option('--follow', 'keep printing new lines (Ctrl-C stops)')
    .action(async (name: string | undefined, options: CommonOptions & { lines: number; follow?: boolean }) => {
      const { paths, logger } = openContext(io, options.dir, 'read');
      const file = paths.logFile(name ?? 'daemon');
      const print = (line: string): void => io.out(`${options.json ? line : formatLogLine(line)}\n`);
      const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (!fs.existsSync(file) && !options.follow) io.err(`no log yet at ${file}\n`);
      const lines = text.split('\n').filter((line) => line.length > 0);
      for (const line of lines.slice(Math.max(0, lines.length - options.lines))) print(line);
      if (!options.follow) return;
      await untilInterrupted((signal) => followLines(file, Buffer.byteLength(text), print, signal, logger));
    });
}
