// What the daemon forks for each teammate, bundled as CommonJS (dist/bundle/teammate-start.cjs,
// where `module` and `__dirname` are the bundle's): the teammate's bundle with V8's code cache.
import path from 'node:path';
import { packageCacheDir, runCachedModules } from './cached-modules.js';
import { tuneTeammateV8 } from './teammate-v8.js';

// Its V8 flags first, before any of its code is compiled (teammate-v8.ts).
tuneTeammateV8(require, globalThis);
// Its cache soon after ready (~150-250 ms), not at the CLI's 3 s: teammates spawned one after
// another after a build (a team's start) use it from the third or so, not from the fifteenth.
runCachedModules({
  entry: path.join(__dirname, 'teammate', 'teammate.js'),
  role: 'teammate',
  parent: module,
  saveAfterMs: 500,
  cacheDir: packageCacheDir(__dirname),
});
