import { Board } from '../board/board.js';
import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { Mailbox } from '../inbox/mailbox.js';
import { createLogger, type Logger } from '../logger.js';
import { resolveStateDir, statePaths, type StatePaths } from '../paths.js';
import type { Io } from './output.js';
import { checkStateFolder, type FolderUse } from './state-folder.js';

export interface CommandContext {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly board: Board;
  readonly mailbox: Mailbox;
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
export function openContext(io: Io, dir: string | undefined, use: FolderUse): CommandContext {
  const paths = stateFolderFor(io, dir, use);
  const logger = use === 'write' ? createLogger({ destination: paths.logFile('cli'), bindings: { component: 'cli' } }) : createLogger();
  const locker = new FileLocker({ logger });
  return { paths, logger, locker, board: new Board({ paths, locker, logger }), mailbox: new Mailbox({ paths, logger }) };
}
