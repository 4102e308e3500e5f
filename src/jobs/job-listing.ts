import fs from 'node:fs';
import type { StatePaths } from '../paths.js';
import { effectiveState, readJobRecords } from './job-record.js';
import { type JobRecord, type JobState } from '../contracts/job-record.js';

/** A job as `teamd jobs` and `teamd status` show it: its record, with `running` checked against the process. */
export interface JobView extends JobRecord {
  readonly shownState: JobState;
}

export interface JobsListing {
  readonly jobs: JobView[];
  readonly problems: { file: string; problem: string }[];
}

const TEAMMATE_FOLDER = /^[a-z][a-z0-9_-]{0,31}$/;

/** Every kept job of the team (or of one teammate), oldest first per teammate. Reads only; works with the daemon down. */
export function listJobs(paths: StatePaths, teammate?: string): JobsListing {
  let names: string[];
  try {
    names = teammate ? [teammate] : fs.readdirSync(paths.jobsDir).filter((name) => TEAMMATE_FOLDER.test(name));
  } catch {
    return { jobs: [], problems: [] };
  }
  const jobs: JobView[] = [];
  const problems: JobsListing['problems'] = [];
  for (const name of names.sort()) {
    const listing = readJobRecords(paths.jobDir(name));
    problems.push(...listing.problems);
    for (const record of listing.records) jobs.push({ ...record, shownState: effectiveState(record) });
  }
  return { jobs, problems };
}

/** Running jobs, and the last `finished` finished ones of each teammate (`teamd jobs` without --all, the dashboard). */
export function recentJobs(jobs: readonly JobView[], finished: number): JobView[] {
  const finishedSeen = new Map<string, number>();
  const keep = new Set<JobView>();
  for (const job of [...jobs].reverse()) {
    if (job.shownState === 'running') keep.add(job);
    else {
      const seen = finishedSeen.get(job.teammate) ?? 0;
      if (seen < finished) keep.add(job);
      finishedSeen.set(job.teammate, seen + 1);
    }
  }
  return jobs.filter((job) => keep.has(job));
}

/** Running jobs per teammate, for `teamd status`. */
export function runningJobCounts(paths: StatePaths): Map<string, number> {
  const counts = new Map<string, number>();
  for (const job of listJobs(paths).jobs) if (job.shownState === 'running') counts.set(job.teammate, (counts.get(job.teammate) ?? 0) + 1);
  return counts;
}
