import { Board } from '../../src/board/board.js';
import { FileLocker, type LockTimings } from '../../src/fs/file-lock.js';
import { createLogger } from '../../src/logger.js';
import { statePaths, type StatePaths } from '../../src/paths.js';

export function openBoard(root: string, timings?: Partial<LockTimings>): { board: Board; paths: StatePaths; locker: FileLocker } {
  const paths = statePaths(root);
  const logger = createLogger();
  const locker = new FileLocker({ logger, timings });
  return { board: new Board({ paths, locker, logger }), paths, locker };
}
