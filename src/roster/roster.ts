import { TeamdError } from '../errors.js';
import { readBoundedText } from '../fs/read-text.js';
import { configSchema, MAX_CONFIG_BYTES, type TeamConfig } from '../contracts/roster.js';

/** Reads the roster the daemon writes (`config.json`). A missing file is an empty team. */
export function readConfig(file: string): TeamConfig {
  const read = readBoundedText(file, MAX_CONFIG_BYTES);
  if (read.kind === 'missing') return configSchema.parse({});
  if (read.kind === 'unusable') {
    // A folder in its place cannot be read as anything: an IO error, as a read of it always was.
    if (!read.stat.isFile()) throw new TeamdError('IO', `cannot read ${file}: ${read.reason}`);
    throw new TeamdError('CONFIG_CORRUPT', `${file} is not a valid roster (${read.reason}); fix it by hand`);
  }
  const raw = read.text;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new TeamdError('CONFIG_CORRUPT', `${file} is not valid JSON (${(error as Error).message}); it was left untouched: fix it by hand`, { cause: error });
  }
  // Without zod's generated parser: a process reads the roster a few times, and generating one
  // cost more than it saved (first parse 5-7 -> 2 ms, later ones 0.3 -> 0.2 ms; docs/architecture.md).
  const parsed = configSchema.safeParse(json, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TeamdError('CONFIG_CORRUPT', `${file} is not a valid roster (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}); fix it by hand`);
  }
  return parsed.data;
}

export function memberNames(config: TeamConfig): string[] {
  return config.members.map((member) => member.name);
}
