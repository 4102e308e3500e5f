import { nextRun } from '../cron/cron-job.js';
import { ScheduleStore } from '../cron/schedule-store.js';
import type { FileLocker } from '../fs/file-lock.js';
import { listJobs, recentJobs } from '../jobs/job-listing.js';
import type { StatePaths } from '../paths.js';
import { firstLine } from '../text.js';
import { isoTimeOrNull } from '../platform/iso-time.js';

/** A background job as the page lists it (`teamd jobs`): the command's first line, not its output. */
export interface JobCard {
  readonly id: string;
  readonly teammate: string;
  readonly state: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly command: string;
}

/** A scheduled job (`teamd cron list`), with its next run. */
export interface CronCard {
  readonly id: string;
  readonly when: string;
  readonly to: string;
  readonly message: string;
  readonly task: boolean;
  readonly nextAt: string | null;
}

export interface ScheduleView {
  readonly jobs: readonly JobCard[];
  readonly cron: readonly CronCard[];
  /** Why cron.json or a job record could not be read, one line each; the rest is shown. */
  readonly problems: readonly string[];
}

/** Finished jobs the page keeps per teammate (running ones are all shown). */
const FINISHED_SHOWN = 5;

/** The team's background jobs and cron jobs, read as `teamd jobs` and `teamd cron list` read them. */
export function readSchedule(paths: StatePaths, locker: FileLocker, now: Date): ScheduleView {
  const listing = listJobs(paths);
  const problems = listing.problems.map((problem) => `${problem.file}: ${problem.problem}`);
  const jobs = recentJobs(listing.jobs, FINISHED_SHOWN).map((job) => ({
    id: job.id,
    teammate: job.teammate,
    state: job.shownState,
    exitCode: job.exitCode,
    signal: job.signal,
    startedAt: job.startedAt,
    endedAt: job.endedAt,
    command: firstLine(job.command, 200),
  }));
  let cron: CronCard[] = [];
  try {
    cron = new ScheduleStore(paths, locker).read().jobs.map((job) => ({
      id: job.id,
      when: job.cron !== undefined ? `${job.cron}${job.tz ? ` (${job.tz})` : ''}` : `once at ${job.at!}`,
      to: job.to,
      message: firstLine(job.message, 200),
      task: job.task,
      nextAt: isoTimeOrNull(nextRun(job, now)),
    }));
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  return { jobs, cron, problems };
}
