// What the daemon forks for each teammate, bundled as CommonJS (dist/bundle/teammate-start.cjs,
// where `module` and `__dirname` are the bundle's): the teammate's bundle with V8's code cache.
import path from 'node:path';
import { runCachedModules } from './cached-modules.js';

runCachedModules({ entry: path.join(__dirname, 'teammate', 'teammate.js'), role: 'teammate', parent: module });
