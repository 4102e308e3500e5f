import { Board } from '../../src/store/files/board.js';
import { Mailbox } from '../../src/store/files/mailbox.js';
import { fileMailStore } from '../../src/store/files/file-mail-store.js';
import { fileTaskBoard } from '../../src/store/files/file-task-board.js';
import type { MailStore } from '../../src/contracts/mail-store.js';
import type { TaskBoard } from '../../src/contracts/task-board.js';
import { FileLocker, type LockTimings } from '../../src/fs/file-lock.js';
import { createLogger } from '../../src/log/logger.js';
import { statePaths, type StatePaths } from '../../src/paths.js';

/** The same board behind the store interface (what teammates, tools and commands are given). */
export function openTaskBoard(root: string, timings?: Partial<LockTimings>): { board: TaskBoard; paths: StatePaths; files: Board } {
  const { board, paths } = openBoard(root, timings);
  return { board: fileTaskBoard(board), paths, files: board };
}

/** A file mail store over a state folder. */
export function openMailStore(paths: StatePaths): MailStore {
  const logger = createLogger();
  return fileMailStore({ paths, mailbox: new Mailbox({ paths, logger }), logger });
}

export function openBoard(root: string, timings?: Partial<LockTimings>): { board: Board; paths: StatePaths; locker: FileLocker } {
  const paths = statePaths(root);
  const logger = createLogger();
  const locker = new FileLocker({ logger, timings });
  return { board: new Board({ paths, locker, logger }), paths, locker };
}
