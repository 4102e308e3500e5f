import fs from 'node:fs';
import path from 'node:path';
import { systemdNotifier } from '../../platform/systemd-notify.js';
import { Command } from 'commander';
import { Daemon } from '../../daemon/daemon.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { readLiveDaemon, runsUnsandboxed } from '../../proc/pid-file.js';
import { createLogger } from '../../log/logger.js';
import { DEFAULT_ROTATION, type Rotation } from '../../fs/rotating-file.js';
import { formatLogLine } from '../log-format.js';
import { journalLine, writesToJournal } from '../../log/journal.js';
import { inotifyWarning } from '../../proc/inotify.js';
import { readMcpConfig } from '../../mcp/mcp-config.js';
import { readConfig } from '../../roster/roster.js';
import { RosterStore } from '../../roster/roster-store.js';
import { parseStore } from '../../store/store-setting.js';
import { errorWithCode, isNodeError, TeamdError } from '../../errors.js';
import type { StatePaths } from '../../paths.js';
import { pathsFor, stateFolderFor } from '../context.js';
import { startDetachedDaemon, stopDaemonAndWait } from '../daemon-process.js';
import { DEFAULT_WORKER_SCRIPT } from '../locations.js';
import { printJson, type Io } from '../output.js';
import { parseDuration } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

interface StartOptions extends CommonOptions {
  foreground?: boolean;
  model?: string;
  idleTimeout?: number;
  store?: string;
  team?: string;
  host?: string;
}

async function runForeground(io: Io, paths: StatePaths, options: StartOptions): Promise<void> {
  // stdout and stderr may be files on the disk that filled up, or a journal that went away:
  // a failed write to them must not end the daemon.
  io.onClosedPipe(() => {});
  const stdout = io.stdoutStream();
  ensurePrivateDir(paths.root);
  let logFailure: string | null = null;
  const logger = createLogger({
    destination: paths.logFile('daemon'),
    rotation: logRotation(paths),
    // On a terminal, lines a person can read; for the journal (systemd's JOURNAL_STREAM names it),
    // the JSON lines each after its priority, for journalctl -p; for any other pipe, the JSON lines.
    tee: stdout.isTTY ? readableStream(stdout) : writesToJournal(io.env, 1) ? { write: (line: string) => void stdout.write(journalLine(line)) } : stdout,
    bindings: { component: 'daemon' },
    // The log is on the disk that failed: say so where it can be seen (stderr: the journal, or logs/daemon-start.log).
    onWriteHealth: (error) => {
      logFailure = error ? errorWithCode(error) : null;
      io.err(
        error
          ? `teamd: cannot write ${paths.logFile('daemon')} (${logFailure}); the daemon keeps running\n`
          : `teamd: ${paths.logFile('daemon')} is written again\n`,
      );
    },
  });
  const daemon = await Daemon.start({
    paths,
    logger,
    workerScript: io.env.TEAMD_WORKER_SCRIPT || DEFAULT_WORKER_SCRIPT,
    workerEnv: io.env,
    settings: { model: options.model, idleTimeoutMs: options.idleTimeout },
    logWriteFailing: () => logFailure,
    // The `ui` setting's dashboard: its code is loaded only by a daemon that serves one.
    dashboard: async (parts) => (await import('../../ui/daemon-ui.js')).serveDashboard(parts),
    // A unit of Type=notify waits for this daemon to say it is ready (docs/operations.md).
    service: systemdNotifier({
      env: io.env,
      pid: process.pid,
      onFailure: (error, socket) =>
        logger.warn(
          { err: error, notifySocket: socket },
          'could not tell systemd (systemd-notify failed); the unit may wait for readiness until its start timeout',
        ),
    }),
  });
  const stop = (signal: string): void => {
    logger.info({ signal }, 'signal received');
    void daemon.stop();
  };
  const faults = new FaultBudget(Date.now);
  // A daemon never dies silently: a fault that escaped its handlers is logged and reported on
  // stderr (the journal); the daemon keeps serving unless faults keep coming, then it stops its team in order.
  const fault =
    (kind: string) =>
    (error: unknown): void => {
      logger.fatal({ err: error, kind }, 'internal error escaped its handler; the daemon keeps running');
      try {
        io.err(`teamd: internal error (${kind}): ${error instanceof Error ? error.message : String(error)}\n`);
      } catch {
        // stderr is on the failing disk too
      }
      if (faults.exceeded()) {
        logger.fatal('too many internal errors in a row: stopping the team and the daemon');
        process.exitCode = 1;
        void daemon.stop();
      }
    };
  const onRejection = fault('unhandled rejection');
  const onException = fault('uncaught exception');
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  try {
    await daemon.stopped;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  }
}

/**
 * --store, --team and --host are kept in config.json's settings (0600), not passed on a command
 * line where `ps` would show a password: the daemon, its teammates and every later command read
 * them there. Checked first, and never changed under a running daemon.
 */
function keepStoreChoice(paths: StatePaths, options: StartOptions): void {
  if (options.store === undefined && options.team === undefined && options.host === undefined) return;
  if (readLiveDaemon(paths)) throw new TeamdError('ALREADY_RUNNING', `a daemon already runs for ${paths.root}: stop it before changing its store`);
  const names = { team: options.team ?? 'team', host: options.host ?? 'host' };
  if (options.store !== undefined) parseStore(options.store, names);
  for (const [what, value] of [
    ['team', options.team],
    ['host', options.host],
  ] as const)
    if (value !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(value))
      throw new TeamdError('USAGE', `--${what} ${JSON.stringify(value)}: a name of letters, digits, ".", "_" and "-", up to 64 characters`);
  ensurePrivateDir(paths.root);
  new RosterStore(paths).update(
    (config) => ({
      ...config,
      settings: {
        ...config.settings,
        ...(options.store === undefined ? {} : { store: options.store }),
        ...(options.team === undefined ? {} : { team: options.team }),
        ...(options.host === undefined ? {} : { host: options.host }),
      },
    }),
    { mustPersist: true },
  );
}

/** At most 10 escaped faults a minute are survived; more means the daemon is broken, not unlucky. */
class FaultBudget {
  private readonly times: number[] = [];

  constructor(private readonly now: () => number) {}

  exceeded(): boolean {
    const now = this.now();
    this.times.push(now);
    while (this.times.length > 0 && now - this.times[0]! > 60_000) this.times.shift();
    return this.times.length > 10;
  }
}

export function startCommand(io: Io): Command {
  return withCommonOptions(new Command('start').description('start the supervisor daemon for a state folder (detaches unless --foreground)'))
    .option('--foreground', 'run in this process (what a systemd unit runs); logs JSON to stdout too')
    .option('--model <id>', "default model for teammates: 'offline' or an Anthropic model name")
    .option(
      '--idle-timeout <duration>',
      'a teammate idle this long sleeps until work appears: 30s, 5m, 1h, or milliseconds (0 = never; default 1m)',
      parseDuration,
    )
    .option('--store <store>', 'where the board and mailboxes live: files (default) or postgres://user:password@host:5432/db (kept in config.json)')
    .option('--team <name>', "the team's name in a shared store (default: the workspace folder's name)")
    .option('--host <name>', "this host's name in a shared store (default: the machine's hostname)")
    .action(async (options: StartOptions) => {
      const paths = stateFolderFor(io, options.dir, 'write');
      keepStoreChoice(paths, options);
      const inotify = inotifyWarning(readConfig(paths.config).members.length);
      if (inotify) io.err(`WARNING: ${inotify}\n`);
      // A refused MCP file leaves its servers out of every teammate: said before they start, not only in their logs.
      for (const problem of readMcpConfig(paths.root).problems) io.err(`WARNING: MCP servers not used: ${problem}\n`);
      if (options.foreground) return runForeground(io, paths, options);
      const info = await startDetachedDaemon(io, paths, { model: options.model, idleTimeout: options.idleTimeout });
      if (options.json) printJson(io, info);
      else io.out(`teamd daemon running (pid ${info.pid}) for ${info.dir}\n`);
      if (runsUnsandboxed(info)) io.err(`WARNING: teammates' commands are NOT sandboxed: ${info.sandbox}\n`);
    });
}

export function stopCommand(io: Io): Command {
  return withCommonOptions(new Command('stop').description('stop every teammate gracefully, then the daemon')).action(async (options: CommonOptions) => {
    const paths = pathsFor(io, options.dir);
    const running = readLiveDaemon(paths);
    if (!running) {
      // Not readable is not "not running": another user's daemon is theirs to stop.
      const closed = closedTo(paths);
      if (closed) throw new TeamdError('IO', closed);
      if (options.json) printJson(io, { stopped: false, reason: 'not running' });
      else io.out(`no teamd daemon is running for ${paths.root}\n`);
      return;
    }
    await stopDaemonAndWait(paths, running);
    if (options.json) printJson(io, { stopped: true, pid: running.pid });
    else io.out(`teamd daemon stopped (pid ${running.pid})\n`);
  });
}

/** Why this user cannot see whether a daemon runs for the state folder (its run folder or pid file closed to it), or null. */
function closedTo(paths: StatePaths): string | null {
  for (const [target, mode] of [
    [paths.root, fs.constants.X_OK],
    [paths.runDir, fs.constants.R_OK | fs.constants.X_OK],
    [paths.daemonPid, fs.constants.R_OK],
  ] as const) {
    try {
      fs.accessSync(target, mode);
    } catch (error) {
      if (!isNodeError(error, 'EACCES')) return null;
      const owner = ownerOf(target) ?? ownerOf(path.dirname(target));
      return `${target} is closed to this user${owner === null ? '' : ` (it belongs to uid ${owner})`}: whether a daemon runs there is not this user's to see; run teamd stop as the user who started it`;
    }
  }
  return null;
}

function ownerOf(target: string): number | null {
  try {
    return fs.statSync(target).uid;
  } catch {
    return null;
  }
}

/** The team's log rotation settings; the defaults when config.json cannot be read (the daemon says why as it starts). */
function logRotation(paths: StatePaths): Rotation {
  try {
    const { settings } = readConfig(paths.config);
    return { maxBytes: settings.logMaxBytes, keep: settings.logFiles };
  } catch {
    return DEFAULT_ROTATION;
  }
}

/** A pino destination that writes each line made readable (teamd logs' format) to a terminal. */
function readableStream(out: NodeJS.WriteStream): { write(line: string): void } {
  return { write: (line) => void out.write(`${formatLogLine(line.trimEnd())}\n`) };
}
