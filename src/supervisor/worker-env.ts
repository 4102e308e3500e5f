import { deferExtraCa } from '../model/http/extra-ca.js';

/** Marks a teammate process with its state folder, so a later daemon can find one a crashed daemon left. */
export const WORKER_OF_ENV = 'TEAMD_WORKER_OF';

/**
 * glibc malloc arenas per teammate, unless the person set their own: the default (8 per core)
 * lets a teammate's few threads spread freed memory over many arenas that are never returned —
 * 200 tasks left 95 MiB resident with it, 84 MiB with one arena (npm run bench -- scale).
 */
const MALLOC_ARENAS = '2';

/**
 * A teammate's environment: the daemon's, marked with the state folder. An offline teammate
 * gets no Anthropic credentials at all: it has no use for them, so nothing it runs can leak them.
 */
export function workerEnvFor(base: NodeJS.ProcessEnv, model: string, stateDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (model === 'offline' && name.startsWith('ANTHROPIC_')) continue;
    env[name] = value;
  }
  env[WORKER_OF_ENV] = stateDir;
  deferExtraCa(env);
  env.MALLOC_ARENA_MAX ??= MALLOC_ARENAS;
  return env;
}
