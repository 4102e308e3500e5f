import { Command } from 'commander';
import { isoTime, isoTimeOrNull } from '../../platform/iso-time.js';
import { nextRun } from '../../cron/cron-job.js';
import { type CronJob } from '../../contracts/cron-job.js';
import { newCronJob } from '../../cron/new-job.js';
import { ScheduleStore } from '../../cron/schedule-store.js';
import { TeamdError } from '../../errors.js';
import { readConfig } from '../../roster/roster.js';
import { LEAD } from '../../contracts/roster.js';
import { openLocal } from '../context.js';
import { formatColumns, printJson, type Io } from '../output.js';
import { parseCronId, parseDurationWithUnit } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { firstLine } from '../../text.js';

interface AddOptions extends CommonOptions {
  to?: string;
  in?: number;
  at?: string;
  tz?: string;
  task?: boolean;
  catchUp?: boolean;
}

export function cronCommand(io: Io): Command {
  const cron = new Command('cron').description('scheduled messages and tasks: cron jobs and one-shot reminders, fired by the daemon');
  cron.addCommand(
    withCommonOptions(new Command('add'))
      .description('schedule a message (or, with --task, a new task): teamd cron add "0 9 * * 1-5" --to alice "stand-up notes, please"')
      .argument('<when-or-message>', 'a cron expression (5 fields, or 6 with seconds first); with --in or --at, the message')
      .argument('[message]', 'what the recipient is told (or the task it gets)')
      .option('--to <recipient>', 'a teammate, role:<role> (every teammate of that role), or lead')
      .option('--in <duration>', 'once, this long from now (90s, 3m, 2h; the unit is required)', parseDurationWithUnit)
      .option('--at <time>', 'once, at this time (2026-12-01T09:00 host time, or with an offset or Z)')
      .option('--tz <zone>', "the cron expression's IANA time zone (default: the host's)")
      .option('--task', 'put a new task on the board instead of sending a message (--to role:<role> sets its role)')
      .option('--catch-up', 'after the daemon was down: run once for the missed runs (default: tell the lead, do not replay)')
      .action(async (first: string, second: string | undefined, options: AddOptions) => {
        const oneShot = options.in !== undefined || options.at !== undefined;
        if (oneShot && second !== undefined) throw new TeamdError('USAGE', 'with --in or --at, give only the message (no cron expression)');
        if (!oneShot && second === undefined) throw new TeamdError('USAGE', 'give a cron expression and a message, or --in/--at and a message');
        const { paths, locker } = await openLocal(io, options.dir, 'write');
        const now = new Date();
        const job = newCronJob(
          {
            cron: oneShot ? undefined : first,
            at: options.at,
            inMs: options.in,
            tz: options.tz,
            to: options.to,
            message: oneShot ? first : second!,
            task: options.task,
            catchUp: options.catchUp,
          },
          { members: readConfig(paths.config).members, createdBy: LEAD, now },
        );
        const added = await new ScheduleStore(paths, locker).add(job);
        const next = nextRun(added, now);
        if (options.json) return printJson(io, { ...added, nextAt: next ? isoTime(next) : null });
        io.out(
          `scheduled ${added.id}: ${describeWhen(added)} to ${added.to}${added.task ? ' (a task)' : ''}; next ${next ? localTime(next, added.tz) : 'never'}\n`,
        );
      }),
  );
  cron.addCommand(
    withCommonOptions(new Command('list'))
      .description('every scheduled job, with its next run')
      .action(async (options: CommonOptions) => {
        const { paths, locker } = await openLocal(io, options.dir, 'read');
        const now = new Date();
        const jobs = new ScheduleStore(paths, locker).read().jobs.map((job) => ({ ...job, nextAt: isoTimeOrNull(nextRun(job, now)) }));
        if (options.json) return printJson(io, jobs);
        if (jobs.length === 0) return io.out('no scheduled jobs (add one: teamd cron add)\n');
        io.out(formatJobs(jobs));
      }),
  );
  cron.addCommand(
    withCommonOptions(new Command('rm'))
      .description('remove a scheduled job')
      .argument('<id>', 'its id, as teamd cron list shows it (c3)', parseCronId)
      .action(async (id: string, options: CommonOptions) => {
        const { paths, locker } = await openLocal(io, options.dir, 'write');
        const removed = await new ScheduleStore(paths, locker).remove(id);
        if (!removed) throw new TeamdError('INVALID_INPUT', `there is no scheduled job ${JSON.stringify(id)} (see teamd cron list)`);
        if (options.json) return printJson(io, removed);
        io.out(`removed ${removed.id}: ${describeWhen(removed)} to ${removed.to}\n`);
      }),
  );
  return cron;
}

function describeWhen(job: CronJob): string {
  return job.cron !== undefined ? `"${job.cron}" (${job.tz ?? 'host time'})` : `once at ${localTime(new Date(job.at!), job.tz)}`;
}

function localTime(at: Date, tz?: string): string {
  return `${at.toLocaleString('sv-SE', { timeZone: tz, timeZoneName: 'short' })}`;
}

function formatJobs(jobs: readonly (CronJob & { nextAt: string | null })[]): string {
  const rows = jobs.map((job) => [
    job.id,
    job.cron !== undefined ? job.cron : 'once',
    job.to + (job.task ? ' (task)' : ''),
    job.nextAt ? localTime(new Date(job.nextAt), job.tz) : '-',
    job.lastFiredFor ? localTime(new Date(job.lastFiredFor), job.tz) : '-',
    firstLine(job.message, 60),
  ]);
  return formatColumns(['ID', 'WHEN', 'TO', 'NEXT', 'LAST', 'MESSAGE'], rows);
}
