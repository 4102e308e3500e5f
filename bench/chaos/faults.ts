import fs from 'node:fs';
import path from 'node:path';
import type { StatePaths } from '../../src/paths.js';
import { readConfig } from '../../src/roster/roster.js';
import { isAlive } from '../../src/proc/process-identity.js';

/** One fault the chaos run can inject; `apply` returns what it did, or null when it found nothing to act on. */
export interface Fault {
  readonly kind: string;
  apply(ctx: FaultContext): Promise<string | null>;
}

export interface FaultContext {
  readonly paths: StatePaths;
  readonly daemonPid: () => number | null;
  readonly restartDaemon: () => Promise<void>;
  readonly pick: <T>(items: readonly T[]) => T | undefined;
  readonly sleep: (ms: number) => Promise<void>;
  /** Files the run damaged on purpose, with the bytes they must still hold at the end. */
  readonly damaged: Map<string, string>;
  /** Tasks that were given a dead holder's lock: each must still get done. */
  readonly locked: Set<number>;
}

function workerPids(paths: StatePaths): number[] {
  try {
    return readConfig(paths.config)
      .members.map((m) => m.pid)
      .filter((pid): pid is number => typeof pid === 'number' && isAlive(pid));
  } catch {
    return [];
  }
}

function workerNames(paths: StatePaths): string[] {
  try {
    return readConfig(paths.config).members.map((m) => m.name);
  } catch {
    return [];
  }
}

function pendingIds(paths: StatePaths): number[] {
  const ids: number[] = [];
  for (const name of fs.readdirSync(paths.tasksDir)) {
    const match = /^task_(\d+)\.json$/.exec(name);
    if (!match) continue;
    try {
      if ((JSON.parse(fs.readFileSync(`${paths.tasksDir}/${name}`, 'utf8')) as { status?: string }).status === 'pending') ids.push(Number(match[1]));
    } catch {
      // damaged on purpose
    }
  }
  return ids;
}

/** SIGSTOP for a while, then SIGCONT (if it still lives). */
async function stopFor(pid: number, ms: number, sleep: (ms: number) => Promise<void>): Promise<string> {
  process.kill(pid, 'SIGSTOP');
  await sleep(ms);
  if (isAlive(pid)) process.kill(pid, 'SIGCONT');
  return `pid ${pid} for ${ms} ms`;
}

let damageSerial = 0;

export const FAULTS: readonly Fault[] = [
  {
    kind: 'kill -9 a teammate',
    async apply({ paths, pick }) {
      const pid = pick(workerPids(paths));
      if (pid === undefined) return null;
      process.kill(pid, 'SIGKILL');
      return `pid ${pid}`;
    },
  },
  {
    kind: 'kill -9 the daemon, start it again',
    async apply({ daemonPid, restartDaemon }) {
      const pid = daemonPid();
      if (pid === null) return null;
      process.kill(pid, 'SIGKILL');
      await restartDaemon();
      return `pid ${pid}`;
    },
  },
  {
    kind: 'SIGSTOP a teammate for 1-7 s',
    async apply({ paths, pick, sleep }) {
      const pid = pick(workerPids(paths));
      if (pid === undefined) return null;
      return stopFor(pid, 1_000 + Math.floor(Math.random() * 6_000), sleep);
    },
  },
  {
    kind: 'SIGSTOP the daemon for 1-3 s',
    async apply({ daemonPid, sleep }) {
      const pid = daemonPid();
      if (pid === null) return null;
      return stopFor(pid, 1_000 + Math.floor(Math.random() * 2_000), sleep);
    },
  },
  {
    kind: 'a schema-invalid task file',
    async apply({ paths, damaged }) {
      // A new id, taken the way `add` takes one (its first revision token), so no real task is overwritten.
      const ids = fs
        .readdirSync(paths.tasksDir)
        .map((name) => /^task_(\d+)\.json$/.exec(name)?.[1])
        .filter((id): id is string => id !== undefined)
        .map(Number);
      const id = Math.max(0, ...ids) + 1;
      try {
        fs.writeFileSync(paths.revisionToken(id, 0), JSON.stringify({ pid: process.pid, start: null }), { flag: 'wx' });
      } catch {
        return null;
      }
      const bytes = JSON.stringify({ id, subject: 'damaged', description: '', status: 'pending', owner: null, blockedBy: [], claim: -1 });
      fs.writeFileSync(paths.taskFile(id), bytes, { flag: 'wx' });
      damaged.set(paths.taskFile(id), bytes);
      return `task_${id}.json`;
    },
  },
  {
    kind: 'a stale lock (dead holder, or a time in the future) on a pending task',
    async apply({ paths, pick, locked }) {
      const id = pick(pendingIds(paths));
      if (id === undefined) return null;
      const lock = `${paths.taskFile(id)}.lock`;
      try {
        fs.mkdirSync(lock);
      } catch {
        return null;
      }
      const future = Math.random() < 0.3;
      const when = new Date(Date.now() + (future ? 3_600_000 : -60_000));
      fs.utimesSync(lock, when, when);
      locked.add(id);
      return `task ${id}${future ? ' (future mtime)' : ''}`;
    },
  },
  {
    kind: "a dead writer's revision token",
    async apply({ paths, pick }) {
      const id = pick(pendingIds(paths));
      if (id === undefined) return null;
      const rev = (JSON.parse(fs.readFileSync(paths.taskFile(id), 'utf8')) as { rev?: number }).rev ?? 0;
      try {
        fs.writeFileSync(paths.revisionToken(id, rev + 1), JSON.stringify({ pid: 999_999_999, start: 1 }), { flag: 'wx' });
      } catch {
        return null;
      }
      return `task ${id} rev ${rev + 1}`;
    },
  },
  {
    kind: 'a torn line at the end of an inbox',
    async apply({ paths, pick }) {
      const name = pick(readConfig(paths.config).members.map((m) => m.name));
      if (name === undefined) return null;
      fs.appendFileSync(paths.inboxFile(name), `{"id":"torn-${damageSerial++}","type":"message","from":"lead","to":"${name}","content":"cut sh`);
      return name;
    },
  },
  {
    kind: 'a damaged roster, for up to 2 s',
    async apply({ paths, sleep }) {
      let good: string;
      try {
        good = fs.readFileSync(paths.config, 'utf8');
      } catch {
        return null;
      }
      const bad = Math.random() < 0.5 ? '{"members": [{"name": "nobody"}]}' : 'not json';
      // In place, as an editor might: teammates read it before each model call, the daemon at its next write.
      fs.writeFileSync(paths.config, bad);
      await sleep(200 + Math.random() * 1_800);
      // The daemon sets it aside and writes its own at its next write; if it has not yet, a person puts it back.
      if (fs.readFileSync(paths.config, 'utf8') === bad) fs.writeFileSync(paths.config, good);
      return bad;
    },
  },
  {
    kind: "a teammate's next model answers cut off mid-way (1-2, retried in the call)",
    async apply({ paths, pick }) {
      const name = pick(workerNames(paths));
      if (name === undefined) return null;
      const file = path.join(paths.root, 'offline-script.json');
      let script: Record<string, unknown[]> = {};
      try {
        script = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown[]>;
      } catch {
        // none yet
      }
      const step = pick<Record<string, unknown>>([
        { cutMidAnswer: 'reset', text: 'begun' },
        { cutMidAnswer: 'end' },
        { streamError: 'overloaded_error', text: 'begun' },
        { streamError: 'api_error' },
      ])!;
      const steps = [...(script[name] ?? []), { ...step, times: 1 + Math.floor(Math.random() * 2) }];
      // Whole, as the endpoint reads it at every request; its place in each teammate's list is kept.
      fs.writeFileSync(`${file}.tmp`, JSON.stringify({ ...script, [name]: steps }));
      fs.renameSync(`${file}.tmp`, file);
      return `${name}: ${JSON.stringify(steps.at(-1))}`;
    },
  },
  {
    kind: 'a damaged cursor',
    async apply({ paths, pick }) {
      const name = pick(readConfig(paths.config).members.map((m) => m.name));
      if (name === undefined || !fs.existsSync(paths.cursorFile(name))) return null;
      const garbage = Math.random() < 0.5 ? '{"offset": 7, "lastId": null}' : 'not json';
      fs.writeFileSync(paths.cursorFile(name), garbage);
      return `${name}: ${garbage}`;
    },
  },
];
