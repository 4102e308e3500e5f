import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { errorWithCode, TeamdError, isNodeError } from '../errors.js';
import type { Logger } from '../contracts/logger.js';
import { isoTime } from '../platform/iso-time.js';

export interface LockTimings {
  /** A lock not refreshed for this long is taken over (proper-lockfile's minimum is 2000). */
  readonly staleMs: number;
  /** How often a holder refreshes its lock's mtime. */
  readonly updateMs: number;
  /** How long acquire() waits for a held lock before giving up. Must exceed staleMs so a dead holder is outlived. */
  readonly acquireTimeoutMs: number;
  readonly retryMinMs: number;
  readonly retryMaxMs: number;
}

/**
 * 5 s stale: a holder killed -9 delays others by at most ~5 s, while a live holder refreshes
 * every second, so only an event loop stalled for 5 s loses its lock (fencing covers that case).
 */
export const DEFAULT_LOCK_TIMINGS: LockTimings = {
  staleMs: 5_000,
  updateMs: 1_000,
  acquireTimeoutMs: 20_000,
  retryMinMs: 1,
  retryMaxMs: 25,
};

/** A lock this far ahead of our clock is a clock problem, not a fresh holder. */
const FUTURE_TOLERANCE_MS = 2_000;

/** proper-lockfile may truncate mtimes to whole seconds: keep this margin before trusting our own age. */
const MTIME_PRECISION_MARGIN_MS = 1_000;

/**
 * The only file-system calls proper-lockfile makes. Its sync API copies the fs object it is given
 * on every call; handing it this small one instead of all of graceful-fs keeps that copy cheap.
 */
const LOCK_FS = {
  mkdir: fs.mkdir,
  mkdirSync: fs.mkdirSync,
  realpath: fs.realpath,
  realpathSync: fs.realpathSync,
  stat: fs.stat,
  statSync: fs.statSync,
  rmdir: fs.rmdir,
  rmdirSync: fs.rmdirSync,
  utimes: fs.utimes,
  utimesSync: fs.utimesSync,
};

export interface LockHandle {
  readonly target: string;
  /** True once proper-lockfile reports that another process may have taken the lock over. */
  readonly compromised: boolean;
  release(): Promise<void>;
}

export interface FileLockerDeps {
  readonly logger: Logger;
  readonly timings?: Partial<LockTimings>;
  readonly now?: () => number;
}

export class FileLocker {
  readonly timings: LockTimings;
  private readonly logger: Logger;
  private readonly now: () => number;
  /** Locks seen with a future mtime: when this process first saw that exact version. */
  private readonly futureLocks = new Map<string, { ino: number; mtimeMs: number; firstSeen: number }>();

  constructor(deps: FileLockerDeps) {
    this.timings = { ...DEFAULT_LOCK_TIMINGS, ...deps.timings };
    this.logger = deps.logger;
    this.now = deps.now ?? Date.now;
  }

  lockPathOf(target: string): string {
    return `${target}.lock`;
  }

  /** One attempt: a handle, or null when a live holder has it. */
  async tryAcquire(target: string): Promise<LockHandle | null> {
    if (this.heldFresh(target)) return null;
    let compromised = false;
    let release: () => void;
    try {
      // Synchronous: no thread-pool round trips on the claim path.
      release = lockfile.lockSync(target, {
        stale: this.timings.staleMs,
        update: this.timings.updateMs,
        realpath: false,
        fs: LOCK_FS,
        onCompromised: (error) => {
          compromised = true;
          this.logger.error({ err: error, lock: this.lockPathOf(target) }, 'lock compromised: another process may have taken it over');
        },
      });
    } catch (error) {
      if (isNodeError(error, 'ELOCKED')) return null;
      // Another claimer took over the same stale lock between our mkdir and proper-lockfile's utimes
      // (or removed it between its stat and rmdir): the lock is someone else's now, not an I/O failure.
      if (isNodeError(error, 'ENOENT')) return null;
      throw new TeamdError('IO', `cannot lock ${target}: ${(error as Error).message}`, { cause: error });
    }
    const acquiredAt = this.now();
    return {
      target,
      get compromised() {
        return compromised;
      },
      release: async () => {
        if (compromised || !this.surelyOurs(acquiredAt)) {
          this.logger.warn({ lock: this.lockPathOf(target) }, 'not releasing a lock that may now belong to another process; it will go stale');
          return;
        }
        try {
          release();
        } catch (error) {
          // The work under it is done: a lock folder left behind goes stale and the next writer
          // takes it over, so this is no reason to report the work as failed.
          if (!isNodeError(error, 'ERELEASED')) {
            this.logger.warn(
              { lock: this.lockPathOf(target), reason: errorWithCode(error as Error) },
              'could not remove a lock; it will go stale and be taken over',
            );
          }
        }
      },
    };
  }

  async acquire(target: string): Promise<LockHandle> {
    const deadline = this.now() + this.timings.acquireTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const handle = await this.tryAcquire(target);
      if (handle) return handle;
      if (this.now() >= deadline) {
        throw new TeamdError(
          'LOCK_TIMEOUT',
          `timed out after ${this.timings.acquireTimeoutMs} ms waiting for ${this.lockPathOf(target)}: another process keeps it fresh. ` +
            `If no teamd process is running, remove that folder by hand.`,
          { details: { lock: this.lockPathOf(target) } },
        );
      }
      await this.pause(attempt);
    }
  }

  async withLock<T>(target: string, fn: (handle: LockHandle) => T | Promise<T>): Promise<T> {
    const handle = await this.acquire(target);
    try {
      return await fn(handle);
    } finally {
      await handle.release();
    }
  }

  /** Waits the jittered backoff for the given retry attempt. */
  async pause(attempt: number): Promise<void> {
    await delay(this.backoff(attempt));
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.timings.retryMaxMs, this.timings.retryMinMs * 1.5 ** attempt);
    return this.timings.retryMinMs + Math.random() * Math.max(0, ceiling - this.timings.retryMinMs);
  }

  /**
   * A lock-free look at the lock folder: a holder refreshed it recently, so trying would only fail.
   * Skipping it here spares a failing mkdir, which takes the folder's write lock in the kernel
   * and slows every other claimer in the same folder. A missing or stale lock is left to
   * proper-lockfile, which takes it (over) with its own checks.
   */
  private heldFresh(target: string): boolean {
    const lock = this.lockPathOf(target);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(lock, { throwIfNoEntry: false });
    } catch {
      return false; // proper-lockfile meets the same error and reports it
    }
    if (stat === undefined) {
      this.futureLocks.delete(lock);
      return false;
    }
    // File times are wall-clock times, so this compares with the wall clock, not the injected one.
    const age = Date.now() - stat.mtimeMs;
    if (age >= -FUTURE_TOLERANCE_MS) {
      this.futureLocks.delete(lock);
      return age < this.timings.staleMs;
    }
    return !this.expireFutureLock(lock, stat);
  }

  /**
   * A lock whose mtime is in the future (the clock was stepped back, or a holder's clock is
   * ahead) would never look stale. A live holder refreshes it every updateMs with its own now,
   * so one left unchanged for staleMs by the monotonic clock has no live holder: its mtime is
   * set back so proper-lockfile takes it over as stale. Returns true when it was expired.
   */
  private expireFutureLock(lock: string, stat: fs.Stats): boolean {
    const seen = this.futureLocks.get(lock);
    const now = performance.now();
    if (!seen || seen.ino !== stat.ino || seen.mtimeMs !== stat.mtimeMs) {
      if (!seen)
        this.logger.warn(
          { lock, mtime: isoTime(stat.mtime) },
          'lock folder has a time in the future (clock stepped back?); it is taken over if nobody refreshes it',
        );
      this.futureLocks.set(lock, { ino: stat.ino, mtimeMs: stat.mtimeMs, firstSeen: now });
      return false;
    }
    if (now - seen.firstSeen < this.timings.staleMs) return false;
    try {
      const past = new Date(Date.now() - 2 * this.timings.staleMs);
      fs.utimesSync(lock, past, past);
    } catch {
      // gone or replaced meanwhile: the next attempt looks again
    }
    this.futureLocks.delete(lock);
    return true;
  }

  /**
   * proper-lockfile's release() removes whatever lock folder is there. Held for less than the
   * stale time, nobody can have taken the lock over; held longer (a stalled event loop), it may
   * now be a newer owner's, so it is left to go stale rather than deleted.
   */
  private surelyOurs(acquiredAt: number): boolean {
    return this.now() - acquiredAt < this.timings.staleMs - MTIME_PRECISION_MARGIN_MS;
  }
}
