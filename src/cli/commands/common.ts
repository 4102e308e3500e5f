import type { Command } from 'commander';

export interface CommonOptions {
  dir?: string;
  json?: boolean;
}

/** --dir and --json, which every command takes. */
export function withCommonOptions(command: Command): Command {
  return command.option('--dir <path>', 'state folder (default: $TEAMD_DIR, else ./.team)').option('--json', 'print machine-readable JSON on stdout');
}
