import fs from 'node:fs';
import path from 'node:path';
import type { StatePaths } from '../../src/paths.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { readConfig } from '../../src/roster/roster.js';
import { parseSession } from '../../src/teammate/session-store.js';
import { stateFolders } from '../../src/paths.js';

/** One invariant of DESIGN §5, checked over what the run left on disk and in the process table. */
export interface Verdict {
  readonly invariant: string;
  readonly figure: string;
  readonly ok: boolean;
}

/** Claims each teammate was told it holds, from the teammates' logs: (task, claim) -> owners. */
export function claimsByTask(paths: StatePaths): Map<string, Set<string>> {
  const owners = new Map<string, Set<string>>();
  for (const name of fs.readdirSync(paths.logsDir)) {
    if (!name.endsWith('.log') || name.startsWith('daemon') || name === 'cli.log') continue;
    for (const line of fs.readFileSync(path.join(paths.logsDir, name), 'utf8').split('\n')) {
      if (!line.includes('"task claimed"')) continue;
      try {
        const entry = JSON.parse(line) as { teammate?: string; taskId?: number; claim?: number };
        const key = `${entry.taskId}#${entry.claim}`;
        owners.set(key, new Set([...(owners.get(key) ?? []), entry.teammate ?? '?']));
      } catch {
        // a torn last line of a killed writer
      }
    }
  }
  return owners;
}

/** Ids each teammate has in its conversation (the session's handled list: its header and the records appended since), with duplicates counted. */
export function handledIds(paths: StatePaths, name: string): { ids: Set<string>; duplicates: number } {
  const { handled } = parseSession(fs.readFileSync(paths.sessionFile(name), 'utf8'));
  return { ids: new Set(handled), duplicates: handled.length - new Set(handled).size };
}

export function sentTo(paths: StatePaths, name: string): string[] {
  return readInboxFrom(paths.inboxFile(name), 0)
    .messages.map((m) => m.message)
    .filter((m) => m.from === 'lead' && m.content.startsWith('chaos message'))
    .map((m) => m.id);
}

export function leftoverProcesses(root: string): number[] {
  const found: number[] = [];
  const needles = [`TEAMD_WORKER_OF=${root}\0`, `@${root}\0`];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = `${fs.readFileSync(`/proc/${entry}/environ`, 'latin1')}\0`;
      if (needles.some((needle) => environ.includes(needle))) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

export function halfWrittenFiles(paths: StatePaths): string[] {
  const found: string[] = [];
  for (const dir of stateFolders(paths)) {
    for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) if (name.endsWith('.tmp')) found.push(path.join(dir, name));
  }
  return found;
}

export function members(paths: StatePaths): string[] {
  return readConfig(paths.config).members.map((m) => m.name);
}
