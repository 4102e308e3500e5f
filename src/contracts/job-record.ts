import * as z from './zod-mini.js';

export const JOB_STATES = ['running', 'exited', 'killed', 'timed-out', 'lost'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** `<teammate>-<n>`: unique in the team, readable in `teamd jobs` and in a conversation. */
export const JOB_ID = /^[a-z][a-z0-9_-]{0,31}-[1-9][0-9]{0,8}$/;

/**
 * One background command, as `jobs/<teammate>/<id>.json` holds it. Only its teammate writes it
 * (whole, atomically); `notified` turns true once the teammate's conversation has heard how it
 * ended, so a notice survives a crash between the end and the next model call.
 */
export const jobRecordSchema = z.strictObject({
  id: z.string().check(z.regex(JOB_ID)),
  teammate: z.string().check(z.minLength(1), z.maxLength(32)),
  command: z.string().check(z.maxLength(64 * 1024)),
  workdir: z.string().check(z.maxLength(4096)),
  pid: z.nullable(z.number().check(z.int(), z.positive())),
  /** Start time of the process in clock ticks (/proc/<pid>/stat): a reused pid is not taken for it. */
  pidStart: z.nullable(z.number().check(z.int(), z.nonnegative())),
  state: z.enum(JOB_STATES),
  startedAt: z.iso.datetime({ offset: true }),
  endedAt: z.nullable(z.iso.datetime({ offset: true })),
  exitCode: z.nullable(z.number().check(z.int())),
  signal: z.nullable(z.string().check(z.maxLength(32))),
  timeoutMs: z.number().check(z.int(), z.positive()),
  /** Output past this many bytes is not written (the command still runs to its end). */
  outputCapBytes: z.number().check(z.int(), z.positive()),
  outputCut: z.boolean(),
  /** Why it was lost, killed or could not start, for the notice. */
  note: z.nullable(z.string().check(z.maxLength(1024))),
  notified: z.boolean(),
});
export type JobRecord = z.infer<typeof jobRecordSchema>;
