import { TeamdError } from '../errors.js';
import { parseName } from '../contracts/names.js';

export interface WorkerArgs {
  readonly dir: string;
  readonly name: string;
}

/** The daemon starts a worker as: teammate-start.cjs --dir <state folder> --name <name>. */
export function parseWorkerArgs(argv: readonly string[]): WorkerArgs {
  const value = (flag: string): string => {
    const at = argv.indexOf(flag);
    const found = at === -1 ? undefined : argv[at + 1];
    if (!found) throw new TeamdError('USAGE', `teammate worker: missing ${flag} (it is started by the daemon: teamd spawn <name> <role>)`);
    return found;
  };
  return { dir: value('--dir'), name: parseName(value('--name'), 'teammate name') };
}
