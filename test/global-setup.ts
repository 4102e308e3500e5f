import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Integration tests run the built CLI and fixtures import dist/: build once before any test. */
export default function setup(): void {
  const root = path.resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], {
    stdio: 'inherit',
  });
}
