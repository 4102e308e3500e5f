import { isStopped } from '../proc/process-identity.js';
import type { StatePaths } from '../paths.js';
import { readLiveDaemon } from '../proc/pid-file.js';

/**
 * Why the daemon of a state folder did not answer on its socket, and what the person can do,
 * from its process's state: stopped (SIGSTOP, Ctrl-Z, a debugger), gone, or running but not
 * answering (busy or hung). Its teammates go on working from the files meanwhile.
 */
export function notAnsweringHint(paths: StatePaths): string {
  const daemon = readLiveDaemon(paths);
  if (daemon === null) return `it is not running any more: teamd status --dir ${paths.root}`;
  if (isStopped(daemon.pid)) return stoppedHint(daemon.pid);
  return `its process (pid ${daemon.pid}) is busy or hung (see: teamd logs); if it stays so, end it with kill ${daemon.pid} (kill -9 ${daemon.pid} if that does not), its teammates exit with it, then: teamd start --dir ${paths.root}`;
}

/** What to say of a process that is stopped (the daemon's, a teammate's), with what that means for it. */
export function stoppedHint(pid: number, meaning?: string): string {
  return `its process (pid ${pid}) is stopped (SIGSTOP, Ctrl-Z or a debugger): ${meaning ? `${meaning}; ` : ''}resume it with kill -CONT ${pid}`;
}
