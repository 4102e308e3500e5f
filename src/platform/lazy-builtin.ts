import { createRequire } from 'node:module';

const nodeRequire = createRequire(import.meta.url);

/**
 * Node modules a process loads only when it first needs them (an offline teammate never loads
 * TLS; an idle one never loads crypto, ~8 ms of its start). Loaded with require, not import(): the CLI's bundle runs as a script through node:vm for
 * V8's code cache, and Node 20 gives such a script no dynamic import (src/platform/boot/code-cache.ts).
 */
export const lazyBuiltin = {
  crypto: (): typeof import('node:crypto') => nodeRequire('node:crypto') as typeof import('node:crypto'),
  tls: (): typeof import('node:tls') => nodeRequire('node:tls') as typeof import('node:tls'),
  http: (): typeof import('node:http') => nodeRequire('node:http') as typeof import('node:http'),
  https: (): typeof import('node:https') => nodeRequire('node:https') as typeof import('node:https'),
  childProcess: (): typeof import('node:child_process') => nodeRequire('node:child_process') as typeof import('node:child_process'),
  workerThreads: (): typeof import('node:worker_threads') => nodeRequire('node:worker_threads') as typeof import('node:worker_threads'),
};
