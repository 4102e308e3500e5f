/** Every `teamd` command, by name: main.ts loads each when named; the start file names its code cache after it. */
export const COMMAND_NAMES = [
  'start',
  'stop',
  'spawn',
  'shutdown',
  'budget',
  'status',
  'team',
  'approve',
  'reject',
  'plans',
  'check-settings',
  'merge',
  'worktree',
  'watch',
  'ui',
  'logs',
  'jobs',
  'cron',
  'mcp',
  'memory',
  'skills',
  'service',
  'run',
  'lead',
  'task',
  'send',
  'broadcast',
  'inbox',
  'demo',
  'completion',
  'store',
  // Hidden: the words completion scripts offer for an argument.
  '__complete',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

/** Commands help and completion do not list: `__complete`, which completion scripts run. */
export function isHidden(name: string | undefined): boolean {
  return name?.startsWith('__') === true;
}

export function isCommandName(name: string | undefined): name is CommandName {
  return name !== undefined && (COMMAND_NAMES as readonly string[]).includes(name);
}

/** What a command line needs loaded (`all`: help, a typo, no arguments), and the name of its code cache. */
export interface CommandLine {
  readonly load: readonly CommandName[] | 'all';
  readonly role: string;
  /** `teamd help <topic>` naming no command. */
  readonly unknownHelp?: string;
}

/**
 * Reads a command line as far as commander will: past the program's own options (`--dir <path>`
 * or `--dir=<path>`, `--json`: main.ts gives every command these, before or after its name), to
 * the command it names. `teamd --dir X task list` loads the task command alone, as `teamd task
 * list --dir X` does; `teamd --version` and `teamd help task` load no other command either.
 */
export function readCommandLine(argv: readonly string[]): CommandLine {
  let at = 0;
  for (;;) {
    const arg = argv[at];
    // Commander gives --dir the next argument whatever it is, as here.
    if (arg === '--dir') at += 2;
    else if (arg === '--json' || arg?.startsWith('--dir=')) at += 1;
    else break;
  }
  const first = argv[at];
  if (isCommandName(first)) return { load: [first], role: first };
  if (first === '-V' || first === '--version') return { load: [], role: 'version' };
  const second = argv[at + 1];
  if (first === 'help' && isCommandName(second)) return { load: [second], role: 'help' };
  if (first === 'help' && second !== undefined && !second.startsWith('-')) return { load: 'all', role: 'other', unknownHelp: second };
  return { load: 'all', role: 'other' };
}
