import { TeamdError } from '../errors.js';
import { LEAD, roleSchema, type Member } from '../contracts/roster.js';
import { requireCron, validTimeZone } from './cron-job.js';
import { MAX_SCHEDULED_MESSAGE_CHARS, type CronJob } from '../contracts/cron-job.js';
import { isoTime } from '../platform/iso-time.js';

/** What a person (teamd cron add) or an agent (schedule_cron) asks for. Exactly one of cron, at, inMs. */
export interface CronRequest {
  readonly cron?: string | undefined;
  /** An instant: ISO 8601, with or without an offset (without: the host's time zone). */
  readonly at?: string | undefined;
  readonly inMs?: number | undefined;
  readonly tz?: string | undefined;
  readonly to?: string | undefined;
  readonly message: string;
  readonly task?: boolean | undefined;
  readonly catchUp?: boolean | undefined;
}

/** The longest a one-shot may wait. */
const MAX_AHEAD_MS = 366 * 24 * 3600_000;

/** Checks a request against the team and the clock and turns it into a job to add; every fault is one clear TeamdError. */
export function newCronJob(request: CronRequest, context: { members: readonly Member[]; createdBy: string; now: Date }): Omit<CronJob, 'id' | 'lastFiredFor'> {
  const given = [request.cron, request.at, request.inMs].filter((value) => value !== undefined).length;
  if (given !== 1) throw new TeamdError('USAGE', 'say when: a cron expression, or --in <duration>, or --at <time> (exactly one)');
  const message = request.message.trim();
  if (message === '') throw new TeamdError('USAGE', 'the message is empty: say what the recipient should be told or do');
  if (message.length > MAX_SCHEDULED_MESSAGE_CHARS)
    throw new TeamdError('MESSAGE_TOO_LARGE', `the message is ${message.length} characters; a scheduled one holds at most ${MAX_SCHEDULED_MESSAGE_CHARS}`);
  if (request.tz !== undefined && !validTimeZone(request.tz))
    throw new TeamdError('INVALID_INPUT', `unknown time zone "${request.tz}" (use an IANA name such as Europe/Berlin or America/New_York)`);
  if (request.cron !== undefined) requireCron(request.cron, request.tz);
  const at = request.cron !== undefined ? undefined : oneShotTime(request, context.now);
  const to = recipient(request, context.members);
  return {
    ...(request.cron !== undefined ? { cron: request.cron.trim() } : {}),
    ...(at !== undefined ? { at } : {}),
    ...(request.tz !== undefined ? { tz: request.tz } : {}),
    to,
    message,
    task: request.task === true,
    catchUp: request.catchUp === true,
    createdBy: context.createdBy,
    createdAt: isoTime(context.now),
  };
}

function oneShotTime(request: CronRequest, now: Date): string {
  let when: number;
  if (request.inMs !== undefined) {
    if (!Number.isSafeInteger(request.inMs) || request.inMs <= 0) throw new TeamdError('USAGE', `--in must be a positive duration, such as 90s or 3m`);
    when = now.getTime() + request.inMs;
  } else {
    when = Date.parse(request.at!);
    if (Number.isNaN(when))
      throw new TeamdError('INVALID_INPUT', `"${request.at}" is not a time: give one such as 2026-12-01T09:00 (host time) or 2026-12-01T09:00:00Z`);
    if (when <= now.getTime()) throw new TeamdError('INVALID_INPUT', `${isoTime(when)} has passed already: give a time in the future`);
  }
  if (when - now.getTime() > MAX_AHEAD_MS)
    throw new TeamdError('INVALID_INPUT', 'a one-shot job may be at most a year ahead; use a cron expression for later or repeating runs');
  return isoTime(when);
}

/**
 * `lead`, a teammate on the roster, or a role (`role:coder`, or a bare role no teammate is named
 * after). A scheduled task goes on the board, where a teammate claims it: its `to` can only say a role.
 */
function recipient(request: CronRequest, members: readonly Member[]): string {
  const raw = request.to?.trim();
  if (request.task === true) {
    if (raw === undefined || raw === LEAD) return LEAD;
    const role = raw.startsWith('role:') ? raw.slice(5) : members.some((m) => m.name === raw) ? null : raw;
    if (role === null)
      throw new TeamdError('USAGE', `a scheduled task goes on the board, where any teammate claims it: --to can only name a role (role:<role>), not ${raw}`);
    return `role:${parseRole(role)}`;
  }
  if (raw === undefined || raw === '') throw new TeamdError('USAGE', 'say who gets it: --to <teammate|role:<role>|lead>');
  if (raw === LEAD) return LEAD;
  if (raw.startsWith('role:')) return `role:${parseRole(raw.slice(5))}`;
  if (members.some((m) => m.name === raw)) return raw;
  if (members.some((m) => m.role === raw)) return `role:${raw}`;
  throw new TeamdError('UNKNOWN_RECIPIENT', `${raw} is neither a teammate nor a role on the team (see teamd team); use lead, a name, or role:<role>`);
}

function parseRole(raw: string): string {
  const parsed = roleSchema.safeParse(raw);
  if (!parsed.success) throw new TeamdError('INVALID_INPUT', parsed.error.issues[0]?.message ?? `invalid role "${raw}"`);
  return raw;
}
