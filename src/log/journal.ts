import fs from 'node:fs';

/** pino's levels as syslog priorities: trace and debug 7, info 6, warn 4, error 3, fatal 2. */
function priorityOf(level: number): number {
  if (level >= 60) return 2;
  if (level >= 50) return 3;
  if (level >= 40) return 4;
  if (level >= 30) return 6;
  return 7;
}

/**
 * Whether the descriptor is the journal: systemd sets JOURNAL_STREAM to `<device>:<inode>` of
 * the stream it connected (systemd.exec(5)); a pipe to something else (`| jq`) is not it.
 */
export function writesToJournal(env: NodeJS.ProcessEnv, fd: number): boolean {
  const named = /^(\d+):(\d+)$/.exec(env.JOURNAL_STREAM ?? '');
  if (!named) return false;
  try {
    const stat = fs.fstatSync(fd);
    return String(stat.dev) === named[1] && String(stat.ino) === named[2];
  } catch {
    return false;
  }
}

/**
 * A log line for the journal: the JSON record after its syslog priority (`<4>{"level":40,…}`),
 * which journald takes as the entry's PRIORITY, so `journalctl -p warning` finds warnings.
 */
export function journalLine(line: string): string {
  const level = /^\{"level":(\d+)/.exec(line);
  return `<${priorityOf(level ? Number(level[1]) : 30)}>${line}`;
}
