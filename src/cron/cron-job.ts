import { Cron } from 'croner';
import { TeamdError } from '../errors.js';
import type { CronJob, ScheduleFile } from '../contracts/cron-job.js';

/** The first job whose expression or time zone cannot be used, with why (the schema checks the shape; this, what croner makes of it). */
export function firstUnusableJob(schedule: ScheduleFile, problemOf: (cron: string, tz?: string) => string | null = cronProblem): string | null {
  for (const [i, job] of schedule.jobs.entries()) {
    const problem = job.cron === undefined ? null : problemOf(job.cron, job.tz);
    if (problem) return `jobs.${i}.cron: ${problem}`;
  }
  return null;
}

/** Why an expression (in a time zone) cannot be used, or null. croner parses it: 5 fields, or 6 with seconds first. */
export function cronProblem(expression: string, tz?: string): string | null {
  if (tz !== undefined && !validTimeZone(tz)) return `unknown time zone "${tz}" (use an IANA name such as Europe/Berlin or America/New_York)`;
  try {
    new Cron(expression, { paused: true, ...(tz ? { timezone: tz } : {}) }).nextRun();
    return null;
  } catch (error) {
    return `invalid cron expression "${expression}": ${(error as Error).message.replace(/^CronPattern: /, '')}`;
  }
}

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The expression, checked: a TeamdError naming it when it cannot be used. */
export function requireCron(expression: string, tz?: string): void {
  const problem = cronProblem(expression, tz);
  if (problem) throw new TeamdError('INVALID_INPUT', problem);
}

/** How many scheduled times to look at, at most, between two looks (a long outage of a per-second job). */
const MAX_ENUMERATED = 10_000;

export interface DueRuns {
  /** Scheduled times in (since, now], oldest first, at most MAX_ENUMERATED (then `more` is true). */
  readonly times: Date[];
  readonly more: boolean;
}

/**
 * The scheduled times of a job that have come since its last run (or its creation), up to `now`.
 * croner computes them in the job's time zone: a daily time inside a spring-forward gap runs once
 * at the end of the gap, and one inside the repeated autumn hour runs once.
 */
export function dueRuns(job: CronJob, now: Date): DueRuns {
  if (job.at !== undefined) {
    const at = new Date(job.at);
    return { times: job.lastFiredFor === null && at <= now ? [at] : [], more: false };
  }
  const cron = new Cron(job.cron!, { paused: true, ...(job.tz ? { timezone: job.tz } : {}) });
  const times: Date[] = [];
  let at: Date | null = new Date(job.lastFiredFor ?? job.createdAt);
  while (times.length < MAX_ENUMERATED) {
    at = cron.nextRun(at);
    if (at === null || at > now) return { times, more: false };
    times.push(at);
  }
  return { times, more: true };
}

/** When the job is next due after `now` (null: never again). */
export function nextRun(job: CronJob, now: Date): Date | null {
  if (job.at !== undefined) {
    if (job.lastFiredFor !== null) return null;
    return new Date(job.at);
  }
  const since = new Date(Math.max(now.getTime(), Date.parse(job.lastFiredFor ?? job.createdAt)));
  return new Cron(job.cron!, { paused: true, ...(job.tz ? { timezone: job.tz } : {}) }).nextRun(since);
}
