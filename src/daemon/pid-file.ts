import fs from 'node:fs';
import { z } from 'zod';
import { isNodeError, TeamdError } from '../errors.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { FileLocker } from '../fs/file-lock.js';
import type { Logger } from '../logger.js';
import type { StatePaths } from '../paths.js';

export const pidInfoSchema = z.looseObject({
  pid: z.number().int().positive(),
  startedAt: z.iso.datetime({ offset: true }),
  dir: z.string(),
});
export type PidInfo = z.infer<typeof pidInfoSchema>;

/**
 * Whether a pid names a live process on this host (pids are host-scoped by design). A zombie
 * (exited, not yet reaped by its parent) is not alive.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return isNodeError(error, 'EPERM');
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** The running daemon of this state folder, or null (no pid file, unreadable, or its process is gone). */
export function readLiveDaemon(paths: StatePaths): PidInfo | null {
  let raw: string;
  try {
    raw = fs.readFileSync(paths.daemonPid, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = pidInfoSchema.safeParse(JSON.parse(raw));
    return parsed.success && isAlive(parsed.data.pid) ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Claims the state folder for this process. A live daemon is an error naming its pid; a pid
 * file left by a daemon that was killed is removed. Held under a lock so two starting daemons
 * cannot both decide the old file is stale.
 */
export async function acquirePidFile(paths: StatePaths, locker: FileLocker, logger: Logger, now: Date): Promise<PidInfo> {
  fs.mkdirSync(paths.runDir, { recursive: true, mode: 0o700 });
  return locker.withLock(`${paths.runDir}/daemon`, () => {
    const live = readLiveDaemon(paths);
    if (live && live.pid !== process.pid) {
      throw new TeamdError('DAEMON_RUNNING', `a teamd daemon is already running for ${paths.root} (pid ${live.pid}); stop it with: teamd stop --dir ${paths.root}`, {
        details: { pid: live.pid },
      });
    }
    if (fs.existsSync(paths.daemonPid)) {
      logger.warn({ file: paths.daemonPid }, 'removing the pid file of a daemon that is no longer running');
      fs.rmSync(paths.daemonPid, { force: true });
    }
    const info: PidInfo = { pid: process.pid, startedAt: now.toISOString(), dir: paths.root };
    writeFileAtomicSync(paths.daemonPid, `${JSON.stringify(info)}\n`);
    return info;
  });
}

/** Removes the pid file if it is still ours. */
export function releasePidFile(paths: StatePaths): void {
  try {
    const parsed = pidInfoSchema.safeParse(JSON.parse(fs.readFileSync(paths.daemonPid, 'utf8')));
    if (parsed.success && parsed.data.pid === process.pid) fs.rmSync(paths.daemonPid, { force: true });
  } catch {
    // already gone or unreadable: nothing of ours to remove
  }
}
