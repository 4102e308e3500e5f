import { errorWithCode, TeamdError } from '../../errors.js';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { readTextIfExists } from '../../fs/read-text.js';
import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import type { RevisionTokens } from './revision-tokens.js';
import type { TaskStore } from './task-store.js';

/** Ids tried past the counter before `add` gives up: each taken one was allocated by a concurrent writer. */
const MAX_ID_PROBES = 64;

export interface IdAllocation {
  readonly paths: StatePaths;
  readonly store: TaskStore;
  readonly tokens: RevisionTokens;
  readonly logger: Logger;
}

/**
 * The next free task id, called under the board lock. Its first revision token is taken here, so
 * two writers (a stale board lock) never get the same id. The counter alone when it reads well;
 * the board is listed only to rebuild a lost or damaged counter, or one left behind by task
 * files copied in by hand or by git.
 */
export function allocateId({ paths, store, tokens, logger }: IdAllocation): number {
  const highest = (): number => store.listAllIds().at(-1) ?? 0;
  let first = readCounter(paths, logger) ?? highest() + 1;
  if (store.exists(first)) first = Math.max(first, highest() + 1);
  for (let id = first; id < first + MAX_ID_PROBES; id++) {
    if (!store.exists(id) && tokens.takeNew(id)) return id;
  }
  throw new TeamdError(
    'CONCURRENT_WRITE',
    `could not allocate a task id: ${MAX_ID_PROBES} ids from ${first} are taken in ${paths.revisionsDir}; retry the command`,
  );
}

/** The next id the counter holds, or null when there is none or it is damaged. */
function readCounter(paths: StatePaths, logger: Logger): number | null {
  const raw = readTextIfExists(paths.taskCounter);
  if (raw === null) return null;
  try {
    const next = (JSON.parse(raw) as { next?: unknown }).next;
    if (typeof next === 'number' && Number.isInteger(next) && next > 0) return next;
  } catch {
    // fall through: a damaged counter is rebuilt from the task files
  }
  logger.warn({ file: paths.taskCounter }, 'task id counter unreadable; continuing from the highest task file');
  return null;
}

/**
 * Writes the counter after a task was added. Never throws: the task is on the board already,
 * and an add that reported failure would be retried and make it twice. A counter left behind
 * (a full disk) only makes the next add look past the ids taken (allocateId).
 */
export function recordNextId(paths: StatePaths, next: number, logger: Logger): void {
  try {
    writeFileAtomicSync(paths.taskCounter, `${JSON.stringify({ next })}\n`);
  } catch (error) {
    const reason = error instanceof Error ? errorWithCode(error) : String(error);
    logger.warn({ file: paths.taskCounter, next, reason }, 'task id counter not updated; the next add looks past the ids taken');
  }
}
