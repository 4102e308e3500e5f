import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalServer, findServerBinaries, type LocalServer } from '../src/store/postgres/local-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL server's URL, or null where no server is installed (never in CI). */
    pgUrl: string | null;
  }
}

/**
 * Integration tests run the built CLI (the bundle behind bin/teamd) and fixtures import dist/:
 * build once before any test. Then a throwaway PostgreSQL server for the store tests, stopped at
 * the end (and by its own watchdog if this process is killed).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = path.resolve(import.meta.dirname, '..');
  // npm test, then npm run test:slow (.ci/run): the second builds only if a source changed since the first.
  const stamp = path.join(root, 'dist', '.tests-built');
  if (!builtSince(root, stamp)) {
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    fs.writeFileSync(stamp, '');
  }
  let server: LocalServer | null = null;
  if (process.env.TEAMD_TEST_PG_URL) {
    project.provide('pgUrl', process.env.TEAMD_TEST_PG_URL);
  } else if (findServerBinaries() || process.env.CI) {
    // In CI a missing server fails the run: .ci/run installs it.
    server = await startLocalServer();
    project.provide('pgUrl', server.url);
  } else {
    process.stderr.write(
      '\n*** no PostgreSQL server installed: the postgres store tests are SKIPPED (apt-get install -y postgresql, or set TEAMD_TEST_PG_URL) ***\n\n',
    );
    project.provide('pgUrl', null);
  }
  return async () => {
    await server?.stop();
  };
}

/** Whether the build is newer than every file and folder it is made from (a removed file changes its folder's time). */
function builtSince(root: string, stamp: string): boolean {
  const built = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const newer = (place: string): boolean => {
    const stat = fs.statSync(place, { throwIfNoEntry: false });
    if (!stat) return false;
    if (stat.mtimeMs >= built) return true;
    return stat.isDirectory() && fs.readdirSync(place).some((name) => newer(path.join(place, name)));
  };
  return !['src', 'workers', 'bench', 'package.json', 'package-lock.json', 'tsconfig.json'].some((name) => newer(path.join(root, name)));
}
