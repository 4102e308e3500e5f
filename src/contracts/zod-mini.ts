/**
 * zod's mini build, for the formats every command reads at start (tasks, messages, the roster,
 * the daemon's pid file and socket, jobs, todos): the same parser core as `zod`, but a schema
 * is built without the dozens of methods classic zod puts on each one. Built at load, the
 * schemas a `teamd task list` needs cost ~3x less (docs/architecture.md). Both kinds mix freely:
 * a mini schema can sit inside a classic one and the other way round.
 *
 * Classic zod sets its English messages when it is imported; a command that loads only this one
 * sets them here, so an invalid file is reported in the same words either way.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

// Named, not `export * as z`: a namespace object would bring every member of zod/mini into the
// bundle, every language's messages with them (550 KB). Import this module as `* as z`.
export {
  _default,
  array,
  boolean,
  discriminatedUnion,
  enum,
  gte,
  int,
  iso,
  literal,
  looseObject,
  lte,
  maxLength,
  minLength,
  nonnegative,
  nullable,
  number,
  object,
  optional,
  positive,
  record,
  refine,
  regex,
  strictObject,
  string,
  superRefine,
  trim,
  union,
  unknown,
} from 'zod/mini';
export type { infer } from 'zod/mini';
