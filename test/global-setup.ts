import { execFileSync } from 'node:child_process';
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
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
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
