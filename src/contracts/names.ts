import * as z from './zod-mini.js';
import { TeamdError } from '../errors.js';

export const NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export const nameSchema = z.string().check(z.regex(NAME_PATTERN));

/** Throws INVALID_NAME naming the bad value and the rule, so no path trick reaches the filesystem. */
export function parseName(raw: string, what = 'name'): string {
  if (NAME_PATTERN.test(raw)) return raw;
  throw new TeamdError(
    'INVALID_NAME',
    `invalid ${what} ${JSON.stringify(raw)}: names are 1-32 characters of a-z, 0-9, '_' or '-', starting with a letter (e.g. "alice")`,
    { details: { name: raw } },
  );
}
