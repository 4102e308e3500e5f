import fs from 'node:fs';
import { statePaths, type StatePaths } from '../../src/paths.js';

/** Writes a roster as the daemon would, so these names are valid recipients. */
export function writeRoster(root: string, names: readonly string[]): StatePaths {
  const paths = statePaths(root);
  fs.mkdirSync(paths.root, { recursive: true });
  fs.writeFileSync(paths.config, JSON.stringify({ members: names.map((name) => ({ name, role: 'coder', status: 'idle' })) }));
  return paths;
}
