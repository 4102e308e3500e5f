// What bin/teamd runs, bundled as CommonJS (dist/bundle/cli-start.cjs, where `module` and
// `__dirname` are the bundle's): the CLI's bundle with V8's code cache, one per command.
import path from 'node:path';
import { runCachedModules } from '../boot/cached-modules.js';
import { isCommandName } from './command-names.js';

const named = process.argv[2];
runCachedModules({ entry: path.join(__dirname, 'cli', 'entry.js'), role: isCommandName(named) ? named : 'other', parent: module });
