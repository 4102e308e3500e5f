import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { rotatedFiles } from '../../fs/rotating-file.js';
import { LEVEL_NUMBERS, parseLogLine, type LogEntry } from '../../logs/log-entry.js';
import { lastLines, type LineVerdict } from '../../logs/read-backwards.js';
import type { StatePaths } from '../../paths.js';
import { readConfig } from '../../roster/roster.js';
import { TeamdError } from '../../errors.js';
import { followLines } from '../../watch/follow-lines.js';
import { openContext } from '../context.js';
import { untilInterrupted } from '../interrupt.js';
import { formatLogEntry } from '../log-format.js';
import type { Io } from '../output.js';
import { parseDuration, parseMemberName, parseNonNegativeInt, parseTaskId } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { fileSizeOrZero } from '../../fs/read-text.js';

interface LogsOptions extends CommonOptions {
  lines: number;
  follow?: boolean;
  since?: number;
  level?: number;
  task?: number;
  all?: boolean;
  full?: boolean;
}

export function logsCommand(io: Io): Command {
  return withCommonOptions(new Command('logs').description('show the daemon log, a teammate log, or all of them (--all), read from the end'))
    .argument('[name]', 'a teammate (default: the daemon)', parseMemberName)
    .option('-n, --lines <n>', 'how many of the last matching lines to show', parseNonNegativeInt, 100)
    .option('-f, --follow', 'keep printing new lines (Ctrl-C stops)')
    .option('--since <when>', 'only lines from this time on: a duration back (10m, 2h) or a date (2026-11-26T09:00)', parseSince)
    .option('--level <level>', 'only lines at this level or above: debug, info, warn, error', parseLevel)
    .option('--task <id>', 'only lines about this task', parseTaskId)
    .option('--all', "the daemon's and every teammate's log, merged in time order")
    .option('--full', 'show long and multi-line values whole (otherwise one line per record, their start and size)')
    .action(async (name: string | undefined, options: LogsOptions) => {
      if (options.all && name) throw new InvalidArgumentError(`give a name or --all, not both`);
      const { paths, logger } = await openContext(io, options.dir, 'read');
      const names = options.all ? logNames(paths) : [name ?? 'daemon'];
      if (name !== undefined && !options.follow) requireKnown(paths, name);
      const keep = (line: string): LineVerdict => verdict(parseLogLine(line), options);
      const print = (line: string): void => {
        const entry = parseLogLine(line);
        if (verdict(entry, options) !== 'keep') return;
        io.out(`${options.json || !entry ? line : formatLogEntry(entry, { full: options.full === true })}\n`);
      };
      const keepFiles = readRotationKeep(paths);
      // Read from the end of each log (and its rotated files): memory does not grow with their size.
      const recent = names.flatMap((who) => lastLines(rotatedFiles(paths.logFile(who), keepFiles), options.lines, keep));
      const shown = names.length > 1 ? mergeByTime(recent).slice(-options.lines) : recent;
      if (shown.length === 0 && !options.follow && !names.some((who) => fs.existsSync(paths.logFile(who))))
        io.err(`no log yet at ${names.length === 1 ? paths.logFile(names[0]!) : paths.logsDir}\n`);
      for (const line of shown) print(line);
      if (!options.follow) return;
      const sizes = names.map((who) => fileSizeOrZero(paths.logFile(who)));
      await untilInterrupted((signal) => Promise.all(names.map((who, i) => followLines(paths.logFile(who), sizes[i]!, print, signal, logger))).then(() => {}));
    });
}

function verdict(entry: LogEntry | null, options: LogsOptions): LineVerdict {
  if (!entry) return options.level === undefined && options.task === undefined && options.since === undefined ? 'keep' : 'skip';
  if (options.since !== undefined && entry.time !== null && entry.time < options.since) return 'stop';
  if (options.level !== undefined && entry.level < options.level) return 'skip';
  if (options.task !== undefined && entry.taskId !== options.task) return 'skip';
  return 'keep';
}

/** The daemon and every teammate with a log: the roster's members, and any other *.log but the CLI's. */
/**
 * A name that is neither a log nor a member is a typo: said, with the logs there are, rather than
 * "no log yet". A member with no log yet, a removed one whose log is kept, and any name when the
 * roster cannot be read are let through; so is --follow, which waits for a log to appear.
 */
function requireKnown(paths: StatePaths, name: string): void {
  if (name === 'daemon' || fs.existsSync(paths.logFile(name))) return;
  let members: string[];
  try {
    members = readConfig(paths.config).members.map((m) => m.name);
  } catch {
    return;
  }
  if (members.includes(name)) return;
  throw new TeamdError(
    'UNKNOWN_MEMBER',
    `no teammate named "${name}" and no log for it (logs: ${logNames(paths).join(', ')}); teamd logs --all shows every one`,
  );
}

function logNames(paths: StatePaths): string[] {
  let files: string[] = [];
  try {
    files = fs.readdirSync(paths.logsDir).filter((file) => file.endsWith('.log'));
  } catch {
    // no logs folder yet
  }
  const names = new Set(['daemon', ...files.map((file) => path.basename(file, '.log')).filter((n) => n !== 'cli' && n !== 'daemon-start')]);
  return [...names];
}

function readRotationKeep(paths: StatePaths): number {
  try {
    return readConfig(paths.config).settings.logFiles;
  } catch {
    return 5;
  }
}

function mergeByTime(lines: readonly string[]): string[] {
  const time = (line: string): number => parseLogLine(line)?.time ?? 0;
  return lines
    .map((line, index) => ({ line, index, at: time(line) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((item) => item.line);
}

function parseSince(raw: string): number {
  if (/^\d+(\.\d+)?(ms|s|m|h)?$/.test(raw.trim())) return Date.now() - parseDuration(raw);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) throw new InvalidArgumentError(`expected a duration back (10m, 2h) or a date (2026-11-26T09:00), got ${JSON.stringify(raw)}.`);
  return at;
}

function parseLevel(raw: string): number {
  const level = LEVEL_NUMBERS[raw.toLowerCase()];
  if (level === undefined) throw new InvalidArgumentError(`expected one of ${Object.keys(LEVEL_NUMBERS).join(', ')}, got ${JSON.stringify(raw)}.`);
  return level;
}
