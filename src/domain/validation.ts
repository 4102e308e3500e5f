import { MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS } from '../contracts/task.js';
import { TeamdError } from '../errors.js';

/** Task ids given by a caller: positive integers, deduplicated, ascending. */
export function dedupe(ids: readonly number[]): number[] {
  for (const id of ids) {
    if (!Number.isInteger(id) || id <= 0) throw new TeamdError('INVALID_INPUT', `invalid task id ${id}: ids are positive integers`);
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Text fields: refused when empty (if required) or over the limit, saying which and by how much. */
export function validateText(what: string, value: string, max: number, required: boolean): string {
  if (required && value.length === 0) throw new TeamdError('INVALID_INPUT', `the ${what} is empty: give a short text`);
  if (value.length > max) {
    throw new TeamdError('INVALID_INPUT', `the ${what} is ${value.length} characters; the limit is ${max}. Put long text in a file and refer to it`, {
      details: { what, length: value.length, max },
    });
  }
  return value;
}

/** A subject or a role is one line: it is shown in one row of task list, watch and status. */
export function validateOneLine(what: string, value: string): string {
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f))
    throw new TeamdError('INVALID_INPUT', `the ${what} is one line of text, without line breaks, tabs or control characters: put the rest in the description`, {
      details: { what },
    });
  return value;
}

/** A new task's fields, checked and trimmed as every store takes them. */
export function checkNewTask(input: {
  readonly subject: string;
  readonly description?: string | undefined;
  readonly blockedBy?: readonly number[] | undefined;
  readonly role?: string | undefined;
  readonly key?: string | undefined;
}): { subject: string; description: string; blockedBy: number[]; role: string | undefined; key: string | undefined } {
  return {
    subject: validateOneLine('subject', validateText('subject', input.subject.trim(), MAX_SUBJECT_CHARS, true)),
    description: validateText('description', input.description ?? '', MAX_DESCRIPTION_CHARS, false),
    blockedBy: dedupe(input.blockedBy ?? []),
    role: input.role === undefined ? undefined : validateOneLine('role', validateText('role', input.role.trim(), 64, true)),
    key: input.key === undefined ? undefined : validateOneLine('key', validateText('key', input.key.trim(), 200, true)),
  };
}
