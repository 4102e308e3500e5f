import type { Plugin } from 'esbuild';

/** What commander's `require('node:child_process')` gets in the bundles: its one use, spawn, loading child_process when called. */
const LAZY_SPAWN = `"use strict";
let loaded;
module.exports = { spawn: (...args) => (loaded ??= require("node:child_process")).spawn(...args) };
`;

/** What proper-lockfile's `require('graceful-fs')` gets in the bundles: Node's own fs. */
const PLAIN_FS = `"use strict";
module.exports = require("node:fs");
`;

/** What signal-exit's `require('assert')` gets in the bundles: the one assertion it makes. */
const EQUAL_ONLY = `"use strict";
module.exports = { equal: (actual, expected, message) => { if (actual != expected) throw new Error(message); } };
`;

interface StandIn {
  /** The module asked for. */
  readonly module: RegExp;
  /** Only when asked for by this package. */
  readonly importer: RegExp;
  readonly contents: string;
}

const STAND_INS: Readonly<Record<string, StandIn>> = {
  /**
   * commander requires child_process at its top for one thing, running a subcommand that is its
   * own executable (`spawn`), which teamd never does; loading it (with net and dgram) is ~5 ms of
   * every CLI command.
   */
  'commander-child-process': { module: /^(node:)?child_process$/, importer: /[\\/]node_modules[\\/]commander[\\/]/, contents: LAZY_SPAWN },
  /**
   * proper-lockfile uses graceful-fs only as the file system for callers that give it none;
   * src/fs/file-lock.ts always gives its own. graceful-fs patches fs as it loads and brings the
   * stream module with it: ~3 ms of every command's start, the read-only ones that take no lock
   * included. The lock files are directories (mkdir, stat, utimes, rmdir): no descriptor is opened,
   * so graceful-fs's queueing of opens past EMFILE never applied to them.
   */
  'lockfile-graceful-fs': { module: /^graceful-fs$/, importer: /[\\/]node_modules[\\/]proper-lockfile[\\/]/, contents: PLAIN_FS },
  /**
   * signal-exit (proper-lockfile's) requires assert for one `assert.equal` on its argument.
   * Loading assert builds process.stderr, to see whether its messages may be coloured: ~2 ms of
   * every command, which otherwise writes with write(2) (src/platform/fd-writer.ts).
   */
  'signal-exit-assert': { module: /^(node:)?assert$/, importer: /[\\/]node_modules[\\/]signal-exit[\\/]/, contents: EQUAL_ONLY },
};

/**
 * Stand-ins for modules our dependencies require at their top but teamd never needs, so
 * the bundles do not load them. Any other import of those modules is untouched.
 */
export const standIns: Plugin = {
  name: 'teamd-stand-ins',
  setup(build) {
    for (const [name, standIn] of Object.entries(STAND_INS)) {
      build.onResolve({ filter: standIn.module }, (args) => (standIn.importer.test(args.importer) ? { path: name, namespace: 'teamd-stand-in' } : undefined));
    }
    build.onLoad({ filter: /.*/, namespace: 'teamd-stand-in' }, (args) => ({ contents: STAND_INS[args.path]!.contents, loader: 'js' }));
  },
};
