import { Command } from 'commander';
import { listJobs, recentJobs, type JobView } from '../../jobs/job-listing.js';
import { TeamdError } from '../../errors.js';
import { readConfig } from '../../roster/roster.js';
import { openLocal } from '../context.js';
import { formatColumns, printJson, type Io } from '../output.js';
import { parseTeammateName } from '../parsers.js';
import { age } from '../request-prompt.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { firstLine } from '../../text.js';

/** Finished jobs shown per teammate without --all. */
const RECENT = 10;

export function jobsCommand(io: Io): Command {
  return withCommonOptions(new Command('jobs').description("teammates' background jobs (bash with run_in_background): running ones and recent ones"))
    .option('--teammate <name>', 'only this teammate', parseTeammateName)
    .option('--all', `every kept job, not only the last ${RECENT} finished per teammate`)
    .action(async (options: CommonOptions & { teammate?: string; all?: boolean }) => {
      const { paths } = await openLocal(io, options.dir, 'read');
      if (options.teammate && !readConfig(paths.config).members.some((m) => m.name === options.teammate))
        throw new TeamdError('UNKNOWN_MEMBER', `${options.teammate} is not on the team (see teamd team)`);
      const listing = listJobs(paths, options.teammate);
      for (const problem of listing.problems) io.err(`warning: skipped ${problem.file}: ${problem.problem}. The file was left untouched.\n`);
      const shown = options.all ? listing.jobs : recentJobs(listing.jobs, RECENT);
      if (options.json)
        return printJson(
          io,
          shown.map(({ shownState, ...record }) => ({ ...record, state: shownState })),
        );
      if (shown.length === 0) return io.out('no background jobs\n');
      io.out(formatJobs(shown, Date.now()));
    });
}

function formatJobs(jobs: readonly JobView[], now: number): string {
  const rows = jobs.map((job) => [
    job.id,
    job.shownState,
    outcome(job),
    age(now - Date.parse(job.startedAt)),
    job.endedAt ? `${((Date.parse(job.endedAt) - Date.parse(job.startedAt)) / 1000).toFixed(1)}s` : '-',
    firstLine(job.command, 80),
  ]);
  return formatColumns(['ID', 'STATE', 'EXIT', 'STARTED', 'TOOK', 'COMMAND'], rows);
}

function outcome(job: JobView): string {
  if (job.exitCode !== null) return String(job.exitCode);
  if (job.signal) return job.signal;
  return '-';
}
