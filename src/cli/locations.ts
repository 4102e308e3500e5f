import { fileURLToPath } from 'node:url';

/** Files of the installed package, found relative to this module (dist/src/cli/). */
export const TEAMD_BIN = fileURLToPath(new URL('../../../bin/teamd', import.meta.url));
export const DEFAULT_WORKER_SCRIPT = fileURLToPath(new URL('../../workers/teammate.js', import.meta.url));
