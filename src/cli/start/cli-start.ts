// What bin/teamd runs, bundled as CommonJS (dist/bundle/cli-start.cjs, where `module` and
// `__dirname` are the bundle's): the CLI's bundle with V8's code cache, one per command.
import path from 'node:path';
import { packageCacheDir, runCachedModules } from '../../platform/boot/cached-modules.js';
import { readCommandLine } from './command-names.js';

runCachedModules({
  entry: path.join(__dirname, 'cli', 'entry.js'),
  role: readCommandLine(process.argv.slice(2)).role,
  parent: module,
  cacheDir: packageCacheDir(__dirname),
});
