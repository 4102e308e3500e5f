import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { Command } from 'commander';
import { requestDaemon } from '../../daemon/control-client.js';
import { Daemon } from '../../daemon/daemon.js';
import { isAlive, readLiveDaemon, type PidInfo } from '../../daemon/pid-file.js';
import { isTeamdError, TeamdError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { resolveStateDir, statePaths, type StatePaths } from '../../paths.js';
import { DEFAULT_LADDER, ladderBudgetMs } from '../../supervisor/stop-ladder.js';
import { DEFAULT_WORKER_SCRIPT, TEAMD_BIN } from '../locations.js';
import { printJson, type Io } from '../output.js';
import { parseNonNegativeInt } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

interface StartOptions extends CommonOptions {
  foreground?: boolean;
  model?: string;
  idleTimeout?: number;
}

const START_TIMEOUT_MS = 20_000;

function pathsOf(io: Io, dir: string | undefined): StatePaths {
  return statePaths(resolveStateDir({ dir, env: io.env, cwd: io.cwd }));
}

async function runForeground(io: Io, paths: StatePaths, options: StartOptions): Promise<void> {
  fs.mkdirSync(paths.root, { recursive: true });
  const logger = createLogger({ destination: paths.logFile('daemon'), tee: process.stdout, bindings: { component: 'daemon' } });
  const daemon = await Daemon.start({
    paths,
    logger,
    workerScript: io.env.TEAMD_WORKER_SCRIPT || DEFAULT_WORKER_SCRIPT,
    workerEnv: io.env,
    settings: { model: options.model, idleTimeoutMs: options.idleTimeout },
  });
  const stop = (signal: string): void => {
    logger.info({ signal }, 'signal received');
    void daemon.stop();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await daemon.stopped;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

/** Starts `teamd start --foreground` detached, and returns once its control socket answers. */
async function runDetached(io: Io, paths: StatePaths, options: StartOptions): Promise<PidInfo> {
  const running = readLiveDaemon(paths);
  if (running) {
    throw new TeamdError('DAEMON_RUNNING', `a teamd daemon is already running for ${paths.root} (pid ${running.pid}); stop it with: teamd stop --dir ${paths.root}`);
  }
  fs.mkdirSync(paths.logsDir, { recursive: true });
  const startLog = paths.logFile('daemon-start');
  const errFd = fs.openSync(startLog, 'w');
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
      throw new TeamdError('DAEMON_START_FAILED', `the daemon exited during start-up (code ${exited}):\n${why}`);
    }
    try {
      return (await requestDaemon(paths, { op: 'ping' }, 2_000)) as PidInfo;
    } catch (error) {
      if (!isTeamdError(error, 'DAEMON_NOT_RUNNING') || Date.now() > deadline) {
        if (Date.now() > deadline) child.kill('SIGTERM');
        throw Date.now() > deadline ? new TeamdError('DAEMON_START_FAILED', `the daemon did not become ready within ${START_TIMEOUT_MS} ms; see ${startLog}`) : error;
      }
    }
    await delay(25);
  }
}

export function startCommand(io: Io): Command {
  return withCommonOptions(new Command('start').description('start the supervisor daemon for a state folder (detaches unless --foreground)'))
    .option('--foreground', 'run in this process (what a systemd unit runs); logs JSON to stdout too')
    .option('--model <id>', "default model for teammates: 'offline' or an Anthropic model name")
    .option('--idle-timeout <ms>', 'a teammate idle this long sleeps until work appears (0 = never; default 60000)', parseNonNegativeInt)
    .action(async (options: StartOptions) => {
      const paths = pathsOf(io, options.dir);
      if (options.foreground) return runForeground(io, paths, options);
      const info = await runDetached(io, paths, options);
      if (options.json) printJson(io, info);
      else io.out(`teamd daemon running (pid ${info.pid}) for ${info.dir}\n`);
    });
}

export function stopCommand(io: Io): Command {
  return withCommonOptions(new Command('stop').description('stop every teammate gracefully, then the daemon'))
    .action(async (options: CommonOptions) => {
      const paths = pathsOf(io, options.dir);
      const running = readLiveDaemon(paths);
      if (!running) {
        if (options.json) printJson(io, { stopped: false, reason: 'not running' });
        else io.out(`no teamd daemon is running for ${paths.root}\n`);
        return;
      }
      await requestDaemon(paths, { op: 'stop' });
      const deadline = Date.now() + ladderBudgetMs(DEFAULT_LADDER) + 5_000;
      while (isAlive(running.pid)) {
        if (Date.now() > deadline) throw new TeamdError('IO', `the daemon (pid ${running.pid}) is still running after ${ladderBudgetMs(DEFAULT_LADDER) + 5_000} ms; see: teamd logs`);
        await delay(25);
      }
      if (options.json) printJson(io, { stopped: true, pid: running.pid });
      else io.out(`teamd daemon stopped (pid ${running.pid})\n`);
    });
}
