import fs from 'node:fs';
import * as z from '../contracts/zod-mini.js';
import { TeamdError } from '../errors.js';
import { isAlive, processArgv, processStartTime } from './process-identity.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { FileLocker } from '../fs/file-lock.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readTextIfExists } from '../fs/read-text.js';
import { isoTime } from '../platform/iso-time.js';

export const pidInfoSchema = z.looseObject({
  pid: z.number().check(z.int(), z.positive()),
  /** The process's start time in clock ticks since boot: a reused pid has another. */
  start: z.optional(z.nullable(z.number().check(z.int(), z.nonnegative()))),
  startedAt: z.iso.datetime({ offset: true }),
  dir: z.string(),
  /** How teammates' commands are confined, in words (see sandbox/sandbox.ts). */
  sandbox: z.optional(z.string()),
  /** False when they run unconfined (no bubblewrap, or settings.sandbox "off"). */
  sandboxed: z.optional(z.boolean()),
  /** False when they are confined but reach any host (bubblewrap cannot make a network namespace here). */
  networkLeashed: z.optional(z.boolean()),
});
export type PidInfo = z.infer<typeof pidInfoSchema>;

/** What the daemon found out about confining its teammates' commands. */
export interface SandboxReport {
  readonly description: string;
  readonly confined: boolean;
  /** Whether their network goes only through the proxy. */
  readonly networkLeashed: boolean;
}

/** Whether this daemon runs its teammates' commands without a sandbox (the person must hear of it). */
export function runsUnsandboxed(info: PidInfo): boolean {
  return info.sandboxed === false;
}

/** Whether this daemon's confined commands reach any host (no network namespace here): the person must hear of it too. */
export function runsWithoutNetworkLeash(info: PidInfo): boolean {
  return info.sandboxed !== false && info.networkLeashed === false;
}

export { isAlive };

/** The running daemon of this state folder, or null (no pid file, unreadable, its process gone, or not a teamd daemon for this folder). */
export function readLiveDaemon(paths: StatePaths): PidInfo | null {
  let raw: string | null;
  try {
    raw = readTextIfExists(paths.daemonPid);
  } catch {
    return null;
  }
  if (raw === null) return null;
  const parsed = pidInfoSchema.safeParse(parsePidFile(raw));
  return parsed.success && isDaemonOf(parsed.data, paths.root) ? parsed.data : null;
}

/**
 * `run/daemon.pid`: the pid alone on its first line (so `kill $(head -1 .team/run/daemon.pid)`
 * works, as with PostgreSQL's postmaster.pid), then the daemon's record as JSON. A file of an
 * older teamd (the JSON alone) is read too. What does not parse, or whose two pids differ, is null.
 */
export function parsePidFile(raw: string): unknown {
  try {
    if (raw.trimStart().startsWith('{')) return JSON.parse(raw);
    const newline = raw.indexOf('\n');
    const pid = raw.slice(0, newline).trim();
    const record: unknown = JSON.parse(raw.slice(newline + 1));
    return /^\d+$/.test(pid) && typeof record === 'object' && record !== null && (record as { pid?: unknown }).pid === Number(pid) ? record : null;
  } catch {
    return null;
  }
}

function pidFileText(info: PidInfo): string {
  return `${info.pid}\n${JSON.stringify(info)}\n`;
}

/**
 * A pid file is believed only if the process behind it is the daemon that wrote it: alive,
 * started when the file says (a pid reused by an unrelated process has another start time),
 * for this folder. A file without a start time (an older teamd) needs a teamd command line.
 */
function isDaemonOf(info: PidInfo, root: string): boolean {
  if (info.dir !== root || !isAlive(info.pid)) return false;
  if (info.pid === process.pid) return true;
  if (typeof info.start === 'number') return processStartTime(info.pid) === info.start;
  return (processArgv(info.pid) ?? []).some((arg) => arg.includes('teamd'));
}

/**
 * Claims the state folder for this process. A live daemon is an error naming its pid; a pid
 * file left by a daemon that was killed is removed. Held under a lock so two starting daemons
 * cannot both decide the old file is stale.
 */
export async function acquirePidFile(paths: StatePaths, locker: FileLocker, logger: Logger, now: Date, sandbox?: SandboxReport): Promise<PidInfo> {
  ensurePrivateDir(paths.runDir);
  return locker.withLock(`${paths.runDir}/daemon`, () => {
    const live = readLiveDaemon(paths);
    if (live && live.pid !== process.pid) {
      throw new TeamdError(
        'DAEMON_RUNNING',
        `a teamd daemon is already running for ${paths.root} (pid ${live.pid}); stop it with: teamd stop --dir ${paths.root}`,
        {
          details: { pid: live.pid },
        },
      );
    }
    if (fs.existsSync(paths.daemonPid)) {
      logger.warn({ file: paths.daemonPid }, 'removing the pid file of a daemon that is no longer running');
      fs.rmSync(paths.daemonPid, { force: true });
    }
    const info: PidInfo = {
      pid: process.pid,
      start: processStartTime(process.pid),
      startedAt: isoTime(now),
      dir: paths.root,
      ...(sandbox ? { sandbox: sandbox.description, sandboxed: sandbox.confined, networkLeashed: sandbox.networkLeashed } : {}),
    };
    writeFileAtomicSync(paths.daemonPid, pidFileText(info));
    return info;
  });
}

/** Removes the pid file if it is still ours. */
export function releasePidFile(paths: StatePaths): void {
  try {
    const parsed = pidInfoSchema.safeParse(parsePidFile(readTextIfExists(paths.daemonPid) ?? 'null'));
    if (parsed.success && parsed.data.pid === process.pid) fs.rmSync(paths.daemonPid, { force: true });
  } catch {
    // already gone or unreadable: nothing of ours to remove
  }
}
