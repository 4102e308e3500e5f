import { sweepDeadTempFiles } from '../fs/atomic-write.js';
import type { Logger } from '../log/logger.js';
import { stateFolders, type StatePaths } from '../paths.js';
import { isAlive } from '../proc/process-identity.js';
import { killLeftovers, killLeftoversOfStateDir, spawnMarker } from './leftovers.js';

/** After a teammate process ended: the commands it left running, and the temp files of writers that died mid-write. */
export function cleanUpAfterTeammate(paths: StatePaths, pid: number | undefined, logger: Logger): void {
  const leftovers = pid === undefined ? [] : killLeftovers(spawnMarker(pid, paths.root));
  if (leftovers.length > 0) logger.warn({ pids: leftovers }, 'killed commands the teammate left running');
  sweepTemps(paths, logger);
}

/** After the whole team stopped (teamd stop): what any teammate left running, and temp files, in one sweep. */
export function cleanUpAfterTeam(paths: StatePaths, logger: Logger): void {
  const leftovers = killLeftoversOfStateDir(paths.root);
  if (leftovers.length > 0) logger.warn({ pids: leftovers }, 'killed commands the teammates left running');
  sweepTemps(paths, logger);
}

/**
 * Before a daemon resumes any task: every process an earlier daemon of this folder left. (Dead
 * writers' temp files it swept first thing at start, before opening the store: sweepTemps.)
 */
export function cleanUpAfterEarlierDaemon(paths: StatePaths, logger: Logger): void {
  const leftovers = killLeftoversOfStateDir(paths.root);
  if (leftovers.length > 0) logger.warn({ pids: leftovers }, 'killed processes an earlier daemon of this folder left running');
}

/** Removes the temp files of writers that died mid-write (their pid is gone) from the state folders. */
export function sweepTemps(paths: StatePaths, logger: Logger): void {
  const temps = sweepDeadTempFiles(stateFolders(paths), isAlive);
  if (temps.length > 0) logger.info({ files: temps }, 'removed temp files of writers that died mid-write');
}
