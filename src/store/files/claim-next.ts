import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { TeamdError, type ErrorCode } from '../../errors.js';
import type { FileLocker, LockHandle } from '../../fs/file-lock.js';
import type { Task } from '../../contracts/task.js';

export interface ClaimNextDeps {
  /** Ids that look ready right now, ascending (a lock-free scan, fully validated). */
  candidates(): Iterable<number>;
  readonly locker: Pick<FileLocker, 'tryAcquire' | 'pause' | 'timings'>;
  readonly taskFile: (id: number) => string;
  /** The locked read-check-write: the claimed task, or null when this candidate must be passed over. */
  claimUnderLock(handle: LockHandle, id: number): Task | null;
  readonly now?: () => number;
}

/** Scans of the board one call makes at most (a backstop: the deadline ends it first); each ends by yielding to the event loop. */
export const MAX_CLAIM_PASSES = 10_000;

/**
 * Claims the lowest-id ready task, or returns null when none can be claimed now.
 *
 * The loop ends, whatever the board holds:
 * - a candidate refused under its lock (taken by someone else first, invalid, not ready after
 *   all) is passed over for the rest of this call, so every pass tries fewer candidates;
 * - a pass that finds no untried candidate returns null;
 * - a pass that found only held locks pauses (a jittered, growing wait) and tries again, until
 *   the locks' holders would be presumed dead twice over (2 x stale), then returns null;
 * - at most MAX_CLAIM_PASSES passes, and every pass yields to the event loop, so IPC, signals
 *   and timers are served while a teammate claims.
 */
export async function claimNext(deps: ClaimNextDeps): Promise<Task | null> {
  const now = deps.now ?? Date.now;
  const deadline = now() + 2 * deps.locker.timings.staleMs;
  const passedOver = new Set<number>();
  for (let pass = 0; pass < MAX_CLAIM_PASSES; pass++) {
    let sawCandidate = false;
    let sawLocked = false;
    let skip = 0;
    for (const id of deps.candidates()) {
      if (passedOver.has(id)) continue;
      sawCandidate = true;
      if (skip > 0) {
        skip--;
        continue;
      }
      // A held lock means another claimer is on this task right now: try the next one instead of queueing.
      const handle = await deps.locker.tryAcquire(deps.taskFile(id));
      if (!handle) {
        sawLocked = true;
        // Others are claiming here: jump a few candidates ahead so racers spread out instead of queueing in step.
        skip = Math.floor(Math.random() * 4);
        continue;
      }
      try {
        const claimed = deps.claimUnderLock(handle, id);
        if (claimed) return claimed;
        passedOver.add(id);
      } finally {
        await handle.release();
      }
    }
    if (!sawCandidate) return null;
    if (sawLocked) {
      if (now() >= deadline) return null;
      await deps.locker.pause(pass);
    } else {
      await yieldToEventLoop();
    }
  }
  return null;
}

/** The candidates in the order a claim tries them: preferred ids (the daemon's hint) first, so a free one needs no scan; skipped ids never. */
export function claimOrder(prefer: readonly number[], scanned: Iterable<number>, skip: ReadonlySet<number>): Iterable<number> {
  return withoutSkipped(prefer.length > 0 ? preferred(prefer, scanned) : scanned, skip);
}

function* preferred(first: readonly number[], rest: Iterable<number>): Generator<number> {
  yield* first;
  for (const id of rest) if (!first.includes(id)) yield id;
}

function* withoutSkipped(ids: Iterable<number>, skip: ReadonlySet<number>): Generator<number> {
  for (const id of ids) if (!skip.has(id)) yield id;
}

/** Why `claimNext` passes over a candidate it locked and moves on to the next one. */
const CLAIM_NEXT_SKIPS = new Set<ErrorCode>(['NOT_READY', 'TASK_CORRUPT', 'TASK_NOT_FOUND', 'CONCURRENT_WRITE']);

/**
 * A refusal under the candidate's lock that means "not this one": taken first, invalid, not ready
 * after all, or CONCURRENT_WRITE (two claimers took over the same stale lock at once, which
 * proper-lockfile cannot prevent, and the other wrote first).
 */
export function passedOver(error: unknown): boolean {
  return error instanceof TeamdError && CLAIM_NEXT_SKIPS.has(error.code);
}
