import fs from 'node:fs';
import { Board } from '../board/board.js';
import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { Mailbox } from '../inbox/mailbox.js';
import { createLogger, type Logger } from '../logger.js';
import { resolveStateDir, statePaths, type StatePaths } from '../paths.js';
import type { Io } from './output.js';

export interface CommandContext {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly board: Board;
  readonly mailbox: Mailbox;
}

/**
 * Wires the library for one CLI command. Commands that write create the state folder;
 * read-only ones refuse a missing folder, so a mistyped --dir is not shown as an empty board.
 */
/** The state folder a command works on: --dir, else $TEAMD_DIR, else ./.team. */
export function pathsFor(io: Io, dir: string | undefined): StatePaths {
  return statePaths(resolveStateDir({ dir, env: io.env, cwd: io.cwd }));
}

export function openContext(io: Io, dir: string | undefined, mode: 'read' | 'write'): CommandContext {
  const paths = pathsFor(io, dir);
  if (mode === 'write') ensurePrivateDir(paths.root);
  else if (!fs.existsSync(paths.root)) {
    throw new TeamdError(
      'STATE_DIR_MISSING',
      `no teamd state folder at ${paths.root}: pass --dir <path> (or set TEAMD_DIR) to use another one, or add a task to create it`,
      { details: { dir: paths.root } },
    );
  }
  const logger = createLogger({ destination: paths.logFile('cli'), bindings: { component: 'cli' } });
  const locker = new FileLocker({ logger });
  return { paths, logger, board: new Board({ paths, locker, logger }), mailbox: new Mailbox({ paths, logger }) };
}
