import * as z from 'zod';
import { nameSchema } from './names.js';
import { roleSchema } from './roster.js';

/** `lead`, a teammate's name, or `role:<role>` (every teammate with that role; with a task, the task's role). */
export const recipientSchema = z.union([
  nameSchema,
  z
    .string()
    .regex(/^role:/)
    .pipe(
      z
        .string()
        .transform((s) => s.slice(5))
        .pipe(roleSchema),
    ),
]);

export const MAX_SCHEDULED_MESSAGE_CHARS = 16 * 1024;
export const MAX_CRON_JOBS = 1_000;

const instant = z.iso.datetime({ offset: true });

/**
 * One scheduled job, as cron.json holds it. A cron job repeats; a one-shot (`at`) fires once and
 * is removed. `lastFiredFor` is the scheduled time it last fired for (or reported missed): a
 * time at or before it never fires again, which is what makes a run happen at most once.
 */
export const cronJobSchema = z.strictObject({
  id: z.string().regex(/^c[1-9][0-9]{0,8}$/),
  cron: z.string().min(1).max(200).optional(),
  at: instant.optional(),
  /** IANA time zone of the expression; absent: the host's. */
  tz: z.string().min(1).max(64).optional(),
  to: z.string().min(1).max(80),
  message: z.string().min(1).max(MAX_SCHEDULED_MESSAGE_CHARS),
  /** Put on the board as a new task instead of sent as a message. */
  task: z.boolean().default(false),
  /** Runs missed while the daemon was down: one catch-up run (true) or a report to the lead (false). */
  catchUp: z.boolean().default(false),
  createdBy: nameSchema,
  createdAt: instant,
  lastFiredFor: instant.nullable().default(null),
});
export type CronJob = z.infer<typeof cronJobSchema>;

export const scheduleFileSchema = z.strictObject({
  nextId: z.number().int().positive().default(1),
  jobs: z
    .array(cronJobSchema)
    .max(MAX_CRON_JOBS)
    .default([])
    .superRefine((jobs, ctx) => {
      for (const [i, job] of jobs.entries()) {
        if ((job.cron === undefined) === (job.at === undefined))
          ctx.addIssue({ code: 'custom', path: [i], message: `job ${job.id} needs exactly one of "cron" and "at"` });
        if (!recipientSchema.safeParse(job.to).success) ctx.addIssue({ code: 'custom', path: [i, 'to'], message: `"${job.to}" is not a recipient` });
      }
    }),
});
export type ScheduleFile = z.infer<typeof scheduleFileSchema>;
