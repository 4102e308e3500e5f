import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { isAlive, readLiveDaemon, type PidInfo } from '../../src/proc/pid-file.js';
import { statePaths } from '../../src/paths.js';
import { readConfig } from '../../src/roster/roster.js';
import { type Member } from '../../src/contracts/roster.js';
import { FIXTURES, runTeamd } from './processes.js';
import { onBeforeTempRemoval } from './temp-dir.js';

const started = new Set<string>();

export interface DaemonSetup {
  /** A fixture under test/fixtures/workers/ instead of the real teammate. */
  readonly worker?: string;
  readonly settings?: Record<string, unknown>;
  readonly env?: NodeJS.ProcessEnv;
}

export function workerEnv(setup: DaemonSetup): NodeJS.ProcessEnv {
  return { ...(setup.worker ? { TEAMD_WORKER_SCRIPT: path.join(FIXTURES, 'workers', setup.worker) } : {}), ...setup.env };
}

/** Starts a detached daemon through the real CLI; it is stopped (or killed) after the test. */
export async function startDaemon(dir: string, setup: DaemonSetup = {}): Promise<PidInfo> {
  const paths = statePaths(dir);
  fs.mkdirSync(paths.root, { recursive: true });
  if (setup.settings) {
    const config = readConfig(paths.config);
    fs.writeFileSync(paths.config, JSON.stringify({ ...config, settings: { ...config.settings, ...setup.settings } }));
  }
  // A fresh team asks the lead before every command (the mode default): the tests' teammates
  // run what their tasks say, unless a test writes its own settings.
  const settings = path.join(paths.root, 'settings.json');
  if (!fs.existsSync(settings)) fs.writeFileSync(settings, JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
  started.add(dir);
  const result = await runTeamd(['start', '--dir', dir, '--json'], { env: workerEnv(setup) });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as PidInfo;
}

export function members(dir: string): Member[] {
  return readConfig(statePaths(dir).config).members;
}

export function member(dir: string, name: string): Member | undefined {
  return members(dir).find((m) => m.name === name);
}

/** Pids of teammate processes still alive, from the roster. */
export function livePids(dir: string): number[] {
  return members(dir)
    .map((m) => m.pid)
    .filter((pid): pid is number => typeof pid === 'number' && isAlive(pid));
}

onBeforeTempRemoval(async () => {
  for (const dir of started) {
    const daemon = readLiveDaemon(statePaths(dir));
    if (daemon) {
      await runTeamd(['stop', '--dir', dir]);
      if (isAlive(daemon.pid)) process.kill(daemon.pid, 'SIGKILL');
    }
    for (const pid of fs.existsSync(statePaths(dir).config) ? livePids(dir) : []) process.kill(pid, 'SIGKILL');
  }
  started.clear();
});

/** Which rung of the stop ladder ended each teammate at the daemon's last stop, from its log. */
export function lastStopRungs(dir: string): Record<string, string> | undefined {
  return fs
    .readFileSync(statePaths(dir).logFile('daemon'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"daemon stopped"'))
    .map((line) => JSON.parse(line) as { rungs: Record<string, string> })
    .at(-1)?.rungs;
}
