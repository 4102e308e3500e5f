import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { silentLogger, type Logger } from '../log/silent-logger.js';
import { resolveStateDir, statePaths, type StatePaths } from '../paths.js';
import { readConfig } from '../roster/roster.js';
import type { MailStore } from '../contracts/mail-store.js';
import { openStore } from '../store/open/open-store.js';
import { type TeamStore, type StoreSetting } from '../contracts/team-store.js';
import { storeSetting } from '../store/store-setting.js';
import type { TaskBoard } from '../contracts/task-board.js';
import type { Io } from './output.js';
import { checkStateFolder, type FolderUse } from './state-folder.js';

export interface CommandContext {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly store: TeamStore;
  readonly board: TaskBoard;
  readonly mailbox: MailStore;
  readonly locker: FileLocker;
}

/** The state folder a command works on: --dir, else $TEAMD_DIR, else ./.team. An empty --dir is refused, not taken as the current folder. */
export function pathsFor(io: Io, dir: string | undefined): StatePaths {
  if (dir !== undefined && dir.trim() === '')
    throw new TeamdError('USAGE', '--dir is empty: name the state folder (e.g. --dir .team), or leave --dir out to use $TEAMD_DIR, else ./.team');
  return statePaths(resolveStateDir({ dir, env: io.env, cwd: io.cwd }));
}

/** The state folder, checked for the command's use (state-folder.ts). */
export function stateFolderFor(io: Io, dir: string | undefined, use: FolderUse): StatePaths {
  const paths = pathsFor(io, dir);
  checkStateFolder(paths, use, io.err);
  return paths;
}

/**
 * Wires the library for one CLI command. A read-only command writes nothing, not even a log
 * line (its logger is silent: what it has to say goes to stderr); a command that changes state
 * logs to logs/cli.log.
 */
export async function openContext(io: Io, dir: string | undefined, use: FolderUse): Promise<CommandContext> {
  const local = await openLocal(io, dir, use);
  const store = await openStore(commandStore(io, local.paths), { paths: local.paths, logger: local.logger, poolSize: 2, shareKey: use === 'write' });
  return { ...local, store, board: store.board, mailbox: store.mail };
}

/**
 * What a command that touches only this host's state folder needs (no store is opened). pino is
 * loaded only by a command that logs.
 */
export async function openLocal(io: Io, dir: string | undefined, use: FolderUse): Promise<Pick<CommandContext, 'paths' | 'logger' | 'locker'>> {
  const paths = stateFolderFor(io, dir, use);
  const logger =
    use === 'write' ? (await import('../log/logger.js')).createLogger({ destination: paths.logFile('cli'), bindings: { component: 'cli' } }) : silentLogger;
  return { paths, logger, locker: new FileLocker({ logger }) };
}

/**
 * The store a command uses: TEAMD_STORE, else the team's `store` setting. A config.json that
 * cannot be read names no store: the file store then, whose commands still work (teamd status
 * reports the broken file).
 */
export function commandStore(io: Io, paths: StatePaths): StoreSetting {
  let settings: Parameters<typeof storeSetting>[1] = { store: 'files' };
  try {
    settings = readConfig(paths.config).settings;
  } catch {
    // the file store's defaults (TEAMD_STORE still applies)
  }
  return storeSetting(paths, settings, io.env);
}
