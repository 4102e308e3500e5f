import type { Plugin } from 'esbuild';

/** What commander's `require('node:child_process')` gets in the bundles: its one use, spawn, loading child_process when called. */
const LAZY_SPAWN = `"use strict";
let loaded;
module.exports = { spawn: (...args) => (loaded ??= require("node:child_process")).spawn(...args) };
`;

/**
 * commander requires child_process at its top for one thing, running a subcommand that is its
 * own executable (`spawn`), which teamd never does; loading it (with net and dgram) is ~5 ms of
 * every CLI command. In the bundles, commander gets a stand-in whose spawn loads the real module
 * on its first call. Any other import of child_process is untouched.
 */
export const commanderSpawn: Plugin = {
  name: 'commander-lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'commander-child-process', namespace: 'teamd-lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'teamd-lazy' }, () => ({ contents: LAZY_SPAWN, loader: 'js' }));
  },
};
