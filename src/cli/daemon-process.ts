import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { requestDaemon } from '../daemon/control-client.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { isAlive, readLiveDaemon, type PidInfo } from '../proc/pid-file.js';
import { isNodeError, isTeamdError, TeamdError } from '../errors.js';
import type { StatePaths } from '../paths.js';
import { DEFAULT_LADDER, ladderBudgetMs } from '../supervisor/stop-ladder.js';
import { TEAMD_BIN } from './locations.js';
import type { Io } from './output.js';

const START_TIMEOUT_MS = 20_000;

/** Starts `teamd start --foreground` detached, and returns once its control socket answers. */
export async function startDetachedDaemon(
  io: Io,
  paths: StatePaths,
  options: { model?: string | undefined; idleTimeout?: number | undefined },
): Promise<PidInfo> {
  const running = readLiveDaemon(paths);
  if (running) {
    throw new TeamdError(
      'DAEMON_RUNNING',
      `a teamd daemon is already running for ${paths.root} (pid ${running.pid}); stop it with: teamd stop --dir ${paths.root}`,
    );
  }
  ensurePrivateDir(paths.root);
  ensurePrivateDir(paths.logsDir);
  const startLog = paths.logFile('daemon-start');
  const errFd = fs.openSync(startLog, 'w', 0o600);
  const args = [TEAMD_BIN, 'start', '--foreground', '--dir', paths.root];
  if (options.model) args.push('--model', options.model);
  if (options.idleTimeout !== undefined) args.push('--idle-timeout', String(options.idleTimeout));
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'ignore', errFd], env: io.env, cwd: io.cwd });
  fs.closeSync(errFd);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.unref();
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited !== undefined) {
      const why = fs.readFileSync(startLog, 'utf8').trim().split('\n').slice(-5).join('\n');
      throw new TeamdError(
        'DAEMON_START_FAILED',
        `the daemon exited during start-up (code ${exited})${why ? `:\n${why}` : `: ${noReasonHint(paths, startLog)}`}`,
      );
    }
    try {
      return (await requestDaemon(paths, { op: 'ping' }, 2_000)) as PidInfo;
    } catch (error) {
      if (!isTeamdError(error, 'DAEMON_NOT_RUNNING') || Date.now() > deadline) {
        if (Date.now() > deadline) child.kill('SIGTERM');
        throw Date.now() > deadline
          ? new TeamdError('DAEMON_START_FAILED', `the daemon did not become ready within ${START_TIMEOUT_MS} ms; see ${startLog}`)
          : error;
      }
    }
    await delay(25);
  }
}

/** Asks the daemon to stop and waits until its process is gone. */
export async function stopDaemonAndWait(paths: StatePaths, daemon: PidInfo): Promise<void> {
  try {
    await requestDaemon(paths, { op: 'stop' });
  } catch (error) {
    // Another stop got there first: the daemon dropped this connection (or its socket) on its way
    // out. Its exit is what this command waits for either way.
    if (!isAlive(daemon.pid)) return;
    if (!closedOnItsWayOut(error)) throw error;
  }
  const budget = ladderBudgetMs(DEFAULT_LADDER) + 5_000;
  const deadline = Date.now() + budget;
  while (isAlive(daemon.pid)) {
    if (Date.now() > deadline) throw new TeamdError('IO', `the daemon (pid ${daemon.pid}) is still running after ${budget} ms; see: teamd logs`);
    await delay(25);
  }
}

/** What to do about a daemon that ended without a word: its reason could not be written (a full disk), or run it where it can be seen. */
function noReasonHint(paths: StatePaths, startLog: string): string {
  try {
    const disk = fs.statfsSync(paths.root);
    // root may use the blocks reserved for it; anyone else only those available to all.
    if ((process.getuid?.() === 0 ? disk.bfree : disk.bavail) === 0)
      return `the disk holding ${paths.root} is full (it could not even write why): free some space and retry`;
  } catch {
    // no answer from the file system: the general hint
  }
  return `it left no reason in ${startLog}; run it in the foreground to see one: teamd start --foreground --dir ${paths.root}`;
}

/** The daemon's socket refused or dropped the request: it is gone, or going. */
function closedOnItsWayOut(error: unknown): boolean {
  if (isTeamdError(error, 'DAEMON_NOT_RUNNING')) return true;
  const cause = error instanceof Error ? error.cause : undefined;
  return isTeamdError(error, 'IO') && (isNodeError(cause, 'ECONNRESET') || isNodeError(cause, 'EPIPE'));
}
