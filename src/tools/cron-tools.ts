import * as z from 'zod';
import { isoTimeOrNull } from '../platform/iso-time.js';
import { nextRun } from '../cron/cron-job.js';
import { newCronJob } from '../cron/new-job.js';
import { defineTool, toolError, type ToolContext } from '../contracts/tool.js';
import { expected } from './team-tools.js';

const noSchedule = () => toolError('the schedule is not available here');

export const scheduleCronTool = defineTool({
  name: 'schedule_cron',
  description:
    'Schedule a message (or, with task: true, a new task on the board) for later: give exactly one of cron (a cron expression, 5 fields or 6 with seconds first; in the host time zone unless tz is given), ' +
    'in_seconds (once, that many seconds from now) or at (once, an ISO 8601 time). to: a teammate, "role:<role>", or "lead". The daemon delivers it when due, even after restarts.',
  input: z.object({
    cron: z.string().min(1).max(200).optional(),
    in_seconds: z.number().int().positive().max(31_536_000).optional(),
    at: z.string().min(1).max(64).optional(),
    tz: z.string().min(1).max(64).optional(),
    to: z.string().min(1).max(80).optional(),
    message: z
      .string()
      .min(1)
      .max(16 * 1024),
    task: z.boolean().optional(),
    catch_up: z.boolean().optional(),
  }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => {
      const schedule = ctx.schedule;
      if (!schedule) return noSchedule();
      const now = new Date();
      const job = newCronJob(
        {
          cron: input.cron,
          at: input.at,
          inMs: input.in_seconds === undefined ? undefined : input.in_seconds * 1000,
          tz: input.tz,
          to: input.to,
          message: input.message,
          task: input.task,
          catchUp: input.catch_up,
        },
        { members: schedule.members(), createdBy: ctx.name, now },
      );
      const added = await schedule.store.add(job);
      return { content: `scheduled ${added.id}; next run ${isoTimeOrNull(nextRun(added, now)) ?? 'never'} (cancel it with cancel_cron)` };
    }),
});

export const listCronsTool = defineTool({
  name: 'list_crons',
  description: "List the team's scheduled jobs (cron and one-shot), with their next run.",
  input: z.object({}),
  needsApprovedPlan: false,
  run: (_input, ctx) =>
    expected(async () => {
      if (!ctx.schedule) return noSchedule();
      const now = new Date();
      const jobs = ctx.schedule.store.read().jobs.map((job) => ({ ...job, nextAt: isoTimeOrNull(nextRun(job, now)) }));
      return { content: jobs.length === 0 ? 'no scheduled jobs' : JSON.stringify(jobs, null, 2) };
    }),
});

export const cancelCronTool = defineTool({
  name: 'cancel_cron',
  description: 'Remove a scheduled job by its id (as list_crons shows it, e.g. c3).',
  input: z.object({ id: z.string().regex(/^c[1-9][0-9]{0,8}$/, 'a scheduled job id looks like c3') }),
  needsApprovedPlan: false,
  run: (input, ctx: ToolContext) =>
    expected(async () => {
      if (!ctx.schedule) return noSchedule();
      const removed = await ctx.schedule.store.remove(input.id);
      return removed ? { content: `removed ${removed.id}` } : toolError(`there is no scheduled job ${input.id} (list_crons shows them)`);
    }),
});
