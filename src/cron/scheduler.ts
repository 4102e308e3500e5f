import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import { dueRuns, nextRun } from './cron-job.js';
import { type CronJob } from '../contracts/cron-job.js';
import type { ScheduleStore } from './schedule-store.js';
import { isoTime } from '../platform/iso-time.js';

/** A run found due, and what to do with it: fire it, or tell the lead the runs were missed. */
export type Firing =
  | { readonly kind: 'fire'; readonly job: CronJob; readonly scheduledFor: Date; readonly catchingUp: { count: number; since: Date } | null }
  | { readonly kind: 'missed'; readonly job: CronJob; readonly count: number; readonly more: boolean; readonly since: Date };

export interface SchedulerDeps {
  readonly store: ScheduleStore;
  /** Carries out one firing (a message, a task, a report to the lead). Called under the schedule's lock, after it was recorded. */
  readonly deliver: (firing: Firing) => Promise<void>;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** A run this much past its time when first seen was missed (the daemon was down), not late. */
  readonly missedAfterMs?: number;
  /** The longest the scheduler sleeps between looks (clock changes, a file edited by hand while no watch saw it). */
  readonly maxSleepMs?: number;
}

export const DEFAULT_MISSED_AFTER_MS = 60_000;
const DEFAULT_MAX_SLEEP_MS = 60_000;

/**
 * The daemon's clock for cron.json. It sleeps until the next job is due (a timer, never a poll
 * loop), wakes early when the file changes, and fires each due run at most once: the run's time
 * is recorded in the file before it is delivered, both under the schedule's lock, so a restart
 * or a second daemon finds it done. Runs missed while no daemon was running are reported to the
 * lead once, or caught up with one run when the job says catchUp.
 */
export class Scheduler {
  private timer: NodeJS.Timeout | null = null;
  private watcher: fs.FSWatcher | null = null;
  private running: Promise<void> | null = null;
  private lastProblem: string | null = null;
  private again = false;
  private closed = false;
  private readonly now: () => Date;
  private readonly missedAfterMs: number;
  private readonly maxSleepMs: number;

  constructor(private readonly deps: SchedulerDeps) {
    this.now = deps.now ?? (() => new Date());
    this.missedAfterMs = deps.missedAfterMs ?? DEFAULT_MISSED_AFTER_MS;
    this.maxSleepMs = deps.maxSleepMs ?? DEFAULT_MAX_SLEEP_MS;
  }

  /** Looks once now (what came due while no daemon ran), then follows the file and the clock. */
  async start(): Promise<void> {
    const file = this.deps.store.file;
    try {
      // The folder, not the file: the file is replaced (renamed over) on every change.
      this.watcher = fs.watch(path.dirname(file), (_event, name) => {
        if (name === null || name.toString() === path.basename(file)) void this.look();
      });
      this.watcher.on('error', (error) => this.deps.logger.warn({ err: error }, 'the schedule watch failed; the scheduler looks at least every minute'));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'cannot watch the schedule; the scheduler looks at least every minute');
    }
    await this.look();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    await this.running;
  }

  /** Looks for due runs now (one look at a time; a request during a look makes one more). Resolves when this look is done. */
  look(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass()
      .then(() => void (this.lastProblem = null))
      .catch((error: unknown) => {
        // Said once per distinct fault (a damaged file stays damaged until someone fixes it).
        const problem = error instanceof Error ? error.message : String(error);
        if (problem !== this.lastProblem)
          this.deps.logger.error({ err: error }, 'the scheduler could not read or update the schedule; it looks again every minute');
        this.lastProblem = problem;
      })
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          void this.look();
        } else this.arm();
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    // Nothing due (most looks): no lock taken, nothing written.
    if (!this.deps.store.read().jobs.some((job) => dueRuns(job, this.now()).times.length > 0)) return;
    const firings: Firing[] = [];
    await this.deps.store.update(
      (schedule) => {
        const now = this.now();
        for (const job of [...schedule.jobs]) {
          const decided = this.decide(job, now);
          if (decided.length === 0) continue;
          firings.push(...decided);
          const ran = dueRuns(job, now).times.at(-1)!;
          if (job.at !== undefined) schedule.jobs.splice(schedule.jobs.indexOf(job), 1);
          else job.lastFiredFor = isoTime(ran);
        }
      },
      async () => {
        for (const firing of firings) {
          try {
            await this.deps.deliver(firing);
          } catch (error) {
            this.deps.logger.error({ err: error, cronId: firing.job.id }, 'a scheduled run could not be delivered');
          }
        }
      },
    );
  }

  /** What to do about a job's due runs now: the latest on time fires; older ones were missed. */
  private decide(job: CronJob, now: Date): Firing[] {
    const { times, more } = dueRuns(job, now);
    const latest = times.at(-1);
    if (!latest) return [];
    const onTime = now.getTime() - latest.getTime() <= this.missedAfterMs;
    const missed = onTime ? times.slice(0, -1) : times;
    if (missed.length === 0) return [{ kind: 'fire', job, scheduledFor: latest, catchingUp: null }];
    const since = missed[0]!;
    // Caught up with one run, however many were missed: a daily report is wanted once, not once per day away.
    if (job.catchUp) return [{ kind: 'fire', job, scheduledFor: latest, catchingUp: { count: missed.length + (more ? 1 : 0), since } }];
    const report: Firing = { kind: 'missed', job, count: missed.length, more, since };
    return onTime ? [report, { kind: 'fire', job, scheduledFor: latest, catchingUp: null }] : [report];
  }

  /** Sleeps until the next run is due (at most maxSleepMs). */
  private arm(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    let next = this.maxSleepMs;
    try {
      const now = this.now();
      for (const job of this.deps.store.read().jobs) {
        const at = nextRun(job, now);
        if (at) next = Math.min(next, Math.max(0, at.getTime() - now.getTime()));
      }
    } catch {
      // Reported by the look that failed; looked at again within maxSleepMs.
    }
    this.timer = setTimeout(() => void this.look(), next);
    this.timer.unref();
  }
}
