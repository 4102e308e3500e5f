import { Command, CommanderError } from 'commander';
import { isCommitted, systemCode, TeamdError } from '../../errors.js';
import { PACKAGE_VERSION } from '../locations.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, exitCodeFor } from '../exit-codes.js';
import type { Io } from '../output.js';
import { withCommonOptions } from '../commands/common.js';
import { COMMAND_NAMES, isHidden, readCommandLine, type CommandName } from './command-names.js';

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Errors print one line plus the usage of the command that was wrong, then exit 2. */
function configureErrors(command: Command, io: Io): void {
  const path = commandPath(command);
  command
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: (text, write) => write(`teamd: ${text.replace(/^error: /, '')}`) })
    .showHelpAfterError(`usage: ${path} ${command.usage()}\nrun '${path} --help' for details`);
  for (const sub of command.commands) configureErrors(sub, io);
}

type CommandFactory = (io: Io) => Command;

/**
 * Every command, loaded only when used: `teamd task list` reads the board without loading the
 * daemon, the watch screen or the demo (docs/architecture.md, "Start-up").
 */
const COMMANDS: Readonly<Record<CommandName, () => Promise<CommandFactory>>> = {
  start: async () => (await import('../commands/daemon.js')).startCommand,
  stop: async () => (await import('../commands/daemon.js')).stopCommand,
  spawn: async () => (await import('../commands/team.js')).spawnCommand,
  shutdown: async () => (await import('../commands/team.js')).shutdownCommand,
  budget: async () => (await import('../commands/team.js')).budgetCommand,
  status: async () => (await import('../commands/status.js')).statusCommand,
  team: async () => (await import('../commands/team.js')).teamCommand,
  approve: async () => (await import('../commands/plans.js')).approveCommand,
  reject: async () => (await import('../commands/plans.js')).rejectCommand,
  plans: async () => (await import('../commands/plans.js')).plansCommand,
  'check-settings': async () => (await import('../commands/check-settings.js')).checkSettingsCommand,
  merge: async () => (await import('../commands/worktree.js')).mergeCommand,
  worktree: async () => (await import('../commands/worktree.js')).worktreeCommand,
  watch: async () => (await import('../commands/watch.js')).watchCommand,
  ui: async () => (await import('../commands/ui.js')).uiCommand,
  logs: async () => (await import('../commands/logs.js')).logsCommand,
  jobs: async () => (await import('../commands/jobs.js')).jobsCommand,
  cron: async () => (await import('../commands/cron.js')).cronCommand,
  mcp: async () => (await import('../commands/mcp.js')).mcpCommand,
  memory: async () => (await import('../commands/knowledge.js')).memoryCommand,
  skills: async () => (await import('../commands/knowledge.js')).skillsCommand,
  service: async () => (await import('../commands/service.js')).serviceCommand,
  run: async () => (await import('../commands/run.js')).runCommand,
  lead: async () => (await import('../commands/lead.js')).leadCommand,
  task: async () => (await import('../commands/task.js')).taskCommand,
  send: async () => (await import('../commands/messages.js')).sendCommand,
  broadcast: async () => (await import('../commands/messages.js')).broadcastCommand,
  inbox: async () => (await import('../commands/messages.js')).inboxCommand,
  demo: async () => (await import('../commands/demo.js')).demoCommand,
  // Every command, so the script knows them all (a command line loads only the one it names).
  completion: async () => {
    const { completionCommand } = await import('../commands/completion.js');
    return (io: Io) => completionCommand(io, () => buildProgram(io, []));
  },
  store: async () => (await import('../commands/store.js')).storeCommand,
  __complete: async () => (await import('../commands/complete-words.js')).completeWordsCommand,
};

/** The program with the commands the command line names (all of them for help, a typo, no arguments). */
export async function buildProgram(io: Io, argv: readonly string[] = []): Promise<Command> {
  const { load } = readCommandLine(argv);
  const names: readonly CommandName[] = load === 'all' ? COMMAND_NAMES : load;
  const factories = await Promise.all(names.map((name) => COMMANDS[name]()));
  const program = new Command('teamd')
    .description('runs a team of autonomous LLM coding agents on this machine, coordinating through files in a state folder')
    .version(PACKAGE_VERSION, '-V, --version')
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      `
Every command takes --dir <path> (default: $TEAMD_DIR, else ./.team), before or after its name; commands that print data take --json.
Exit codes: 0 ok, 1 error, 2 wrong arguments or input, 3 nothing ready to claim, 4 refused by the board's state.
Try it offline: teamd demo. Documentation: the docs/ folder of the package.`,
    );
  for (const [i, factory] of factories.entries()) program.addCommand(factory(io), { hidden: isHidden(names[i]) });
  withGlobalOptions(program);
  configureErrors(program, io);
  return program;
}

/** Options every command takes, also before its name (`teamd --dir X status`, as git -C and docker --context are used). */
const GLOBAL_OPTIONS = ['dir', 'json'] as const;

/**
 * --dir and --json on the program too: given before the command, they reach it as if given
 * after its name (there, the command's own value wins).
 */
function withGlobalOptions(program: Command): void {
  withCommonOptions(program);
  program.hook('preAction', (root, command) => {
    for (const key of GLOBAL_OPTIONS) {
      const value: unknown = root.getOptionValue(key);
      if (value !== undefined && command !== root && command.getOptionValue(key) === undefined) command.setOptionValue(key, value);
    }
  });
}

/** The only place errors become exit codes and text. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const unknownHelp = readCommandLine(argv).unknownHelp;
  if (unknownHelp !== undefined) {
    io.err(`teamd: there is no command named ${JSON.stringify(unknownHelp)}; teamd help lists them\n`);
    return EXIT_USAGE;
  }
  try {
    const program = await buildProgram(io, argv);
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT_OK;
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof TeamdError) {
      io.err(`teamd: ${describeTeamdError(error)}\n`);
      return exitCodeFor(error.code);
    }
    io.err(`teamd: ${describeUnexpected(error)}\n`);
    return EXIT_FAILURE;
  }
}

/**
 * The system errors a person can act on: what it means, what to do, and whether trying again
 * then helps (a full disk does; a permission does not without a change of user).
 */
const SYSTEM_HINTS: Readonly<Record<string, { readonly what: string; readonly fix: string; readonly retry: boolean }>> = {
  ENOSPC: { what: 'the disk is full', fix: 'free some space', retry: true },
  EDQUOT: { what: 'the disk quota is used up', fix: 'free some space', retry: true },
  EROFS: { what: 'the file system is read-only', fix: 'remount it read-write', retry: true },
  EACCES: { what: 'permission denied', fix: 'run teamd as the user who owns the state folder', retry: false },
  EPERM: { what: 'operation not permitted', fix: 'run teamd as the user who owns the state folder', retry: false },
  EMFILE: { what: 'too many open files', fix: 'raise the limit (ulimit -n)', retry: true },
  EIO: { what: 'an I/O error from the disk', fix: 'check it (dmesg)', retry: true },
};

/** Codes of a write refused outright (no room, read-only): what was refused did not happen. */
const REFUSED_WRITES = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);

/**
 * What to do about a system error, unless there is no advice or `said` already gives it. "Retry"
 * only where trying again helps and nothing took effect; "nothing was changed" only where the
 * error itself proves it: a bare refused write (a write that stands says so in an error of ours,
 * errors.ts, writtenNotSynced).
 */
function advice(code: string | undefined, tookEffect: 'no' | 'maybe' | 'yes', said = ''): string | undefined {
  const hint = code === undefined ? undefined : SYSTEM_HINTS[code];
  if (hint === undefined || said.includes(hint.fix)) return undefined;
  const fix = `${hint.what}: ${hint.fix}`;
  if (!hint.retry || tookEffect === 'yes') return fix;
  return tookEffect === 'no' && REFUSED_WRITES.has(code!) ? `${fix} and retry; nothing was changed` : `${fix} and retry`;
}

/** Our own error's words, and what to do when a system error lies beneath it (a task that could not be written because the disk is full). */
function describeTeamdError(error: TeamdError): string {
  const hint = advice(systemCode(error.cause), isCommitted(error) ? 'yes' : 'maybe', error.message);
  return hint === undefined ? error.message : `${error.message} (${hint})`;
}

/** A path teamd uses that is the wrong kind of thing (a damaged state folder): what is wrong with it, and what to do. */
const PATH_HINTS: Readonly<Record<string, string>> = {
  EISDIR: 'is a folder where teamd keeps a file: move it aside and retry',
  ERR_FS_EISDIR: 'is a folder where teamd keeps a file: move it aside and retry',
  ENOTDIR: 'goes through a file where a folder should be: fix the path (--dir names a state folder) or move the file aside',
  ELOOP: 'is a loop of symbolic links: replace it with the file or folder it should be',
};

/** One line, never a stack trace: what failed, and for a system error, what to do about it. */
function describeUnexpected(error: unknown): string {
  if (!(error instanceof Error)) return `unexpected error: ${String(error)}`;
  const failed = error as NodeJS.ErrnoException & { info?: { path?: string } };
  const where = failed.path ?? failed.info?.path;
  const pathHint = failed.code === undefined ? undefined : PATH_HINTS[failed.code];
  if (pathHint !== undefined && where !== undefined) return `${where} ${pathHint}`;
  const hint = advice((error as NodeJS.ErrnoException).code, 'no');
  const message = error.message.split('\n')[0] ?? '';
  return hint === undefined ? `unexpected error: ${message} (details in the logs: teamd logs)` : `${message} (${hint})`;
}
