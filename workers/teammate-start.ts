// What the daemon forks, bundled as CommonJS (dist/bundle/teammate-start.cjs, where `module` and
// `__dirname` are the bundle's): the teammate's bundle with V8's code cache.
import path from 'node:path';
import { runCached } from '../src/boot/code-cache.js';

runCached({ bundle: path.join(__dirname, 'teammate.cjs'), role: 'teammate', parent: module });
