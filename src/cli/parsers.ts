import { InvalidArgumentError } from 'commander';
import { TASK_STATUSES, type TaskStatus } from '../contracts/task.js';
import { NAME_PATTERN } from '../contracts/names.js';
import { roleSchema, teammateNameSchema } from '../contracts/roster.js';

export function parseTaskId(raw: string): number {
  if (!/^[1-9]\d{0,14}$/.test(raw.trim()))
    throw new InvalidArgumentError(`expected a task id (a positive whole number such as 3), got ${JSON.stringify(raw)}.`);
  return Number(raw.trim());
}

export function parseTaskIdList(raw: string): number[] {
  const parts = raw.split(',').map((part) => part.trim());
  // An empty part (`1,`, `1,,2`) is a slip, most likely of a missing id: refused, not skipped.
  if (parts.some((part) => part.length === 0)) throw new InvalidArgumentError(`expected task ids separated by commas (e.g. 1,2), got ${JSON.stringify(raw)}.`);
  return parts.map(parseTaskId);
}

export function parseStatus(raw: string): TaskStatus {
  if ((TASK_STATUSES as readonly string[]).includes(raw)) return raw as TaskStatus;
  throw new InvalidArgumentError(`expected one of ${TASK_STATUSES.join(', ')}, got ${JSON.stringify(raw)}.`);
}

export function parseMemberName(raw: string): string {
  if (NAME_PATTERN.test(raw)) return raw;
  throw new InvalidArgumentError(`expected a name of 1-32 characters a-z, 0-9, '_' or '-' starting with a letter (e.g. alice), got ${JSON.stringify(raw)}.`);
}

export function parseNonNegativeInt(raw: string): number {
  if (!/^\d{1,15}$/.test(raw.trim())) throw new InvalidArgumentError(`expected a whole number, got ${JSON.stringify(raw)}.`);
  return Number(raw.trim());
}

/** A name for a new teammate: a member name, and not the lead's. */
export function parseTeammateName(raw: string): string {
  const name = parseMemberName(raw);
  const parsed = teammateNameSchema.safeParse(name);
  if (!parsed.success) throw new InvalidArgumentError(`${parsed.error.issues[0]?.message ?? 'not a teammate name'}.`);
  return name;
}

export function parseRole(raw: string): string {
  const parsed = roleSchema.safeParse(raw);
  if (!parsed.success) throw new InvalidArgumentError(`${parsed.error.issues[0]?.message ?? 'not a role'}, got ${JSON.stringify(raw)}.`);
  return raw.trim();
}

const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration: 500ms, 5s, 2m, 1h, or a bare number of milliseconds; in milliseconds. */
/** A duration that must say its unit (`cron add --in 5` meant 5 ms): 90s, 3m, 2h, 500ms. */
export function parseDurationWithUnit(raw: string): number {
  if (/^\s*\d+(\.\d+)?\s*$/.test(raw))
    throw new InvalidArgumentError(
      `give the duration's unit: ${raw.trim()}s, ${raw.trim()}m or ${raw.trim()}h (ms for milliseconds), got ${JSON.stringify(raw)}.`,
    );
  return parseDuration(raw);
}

export function parseDuration(raw: string): number {
  const match = /^(\d{1,12}(?:\.\d{1,3})?)(ms|s|m|h)?$/.exec(raw.trim());
  if (!match) throw new InvalidArgumentError(`expected a duration such as 30s, 2m, 1h or 500ms (a bare number is milliseconds), got ${JSON.stringify(raw)}.`);
  const ms = Math.round(Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!);
  if (!Number.isSafeInteger(ms)) throw new InvalidArgumentError(`the duration ${JSON.stringify(raw)} is too long.`);
  return ms;
}

/** A scheduled job's id as `teamd cron list` shows it: c3. */
export function parseCronId(raw: string): string {
  if (/^c[1-9]\d{0,14}$/.test(raw.trim())) return raw.trim();
  throw new InvalidArgumentError(`expected a scheduled job's id as teamd cron list shows it (e.g. c3), got ${JSON.stringify(raw)}.`);
}
