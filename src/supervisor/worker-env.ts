import { deferExtraCa } from '../platform/http/extra-ca.js';

/** Marks a teammate process with its state folder, so a later daemon can find one a crashed daemon left. */
export const WORKER_OF_ENV = 'TEAMD_WORKER_OF';

/**
 * glibc malloc arenas per teammate, unless the person set their own: the default (8 per core)
 * lets a teammate's few threads spread freed memory over many arenas that are never returned —
 * 200 tasks left 95 MiB resident with it, 84 MiB with one arena (npm run bench -- scale).
 */
const MALLOC_ARENAS = '2';

/**
 * glibc's thresholds at their starting values, fixed: glibc raises both each time a large block
 * is freed, after which large buffers (a file read, an answer's body) come from the heap and
 * stay there, freed but not given back. Fixed, a block over 128 KiB is mapped and unmapped on
 * its own, and the heap's free top is returned above 128 KiB. An idle teammate after a few
 * tasks: malloc heap 2.8-4.6 -> 2.1-2.2 MiB, resident ~0.8 MiB less (docs/architecture.md, "Scale").
 */
const MALLOC_THRESHOLD = '131072';

/** The dashboard's token (src/ui/ui-server.ts): the daemon's alone; no teammate needs it. */
const DASHBOARD_TOKEN_ENV = 'TEAMD_UI_TOKEN';

/**
 * A teammate's environment: the daemon's, marked with the state folder. An offline teammate
 * gets no Anthropic credentials at all: it has no use for them, so nothing it runs can leak them.
 * No teammate gets the dashboard's token.
 */
export function workerEnvFor(base: NodeJS.ProcessEnv, model: string, stateDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if ((model === 'offline' && name.startsWith('ANTHROPIC_')) || name === DASHBOARD_TOKEN_ENV) continue;
    env[name] = value;
  }
  env[WORKER_OF_ENV] = stateDir;
  deferExtraCa(env);
  env.MALLOC_ARENA_MAX ??= MALLOC_ARENAS;
  env.MALLOC_MMAP_THRESHOLD_ ??= MALLOC_THRESHOLD;
  env.MALLOC_TRIM_THRESHOLD_ ??= MALLOC_THRESHOLD;
  return env;
}
