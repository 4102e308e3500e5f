import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Integration tests run the built CLI (the bundle behind bin/teamd) and fixtures import dist/: build once before any test. */
export default function setup(): void {
  const root = path.resolve(import.meta.dirname, '..');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}
