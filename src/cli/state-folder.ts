import fs from 'node:fs';
import { TeamdError } from '../errors.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import type { StatePaths } from '../paths.js';

/** What every state folder teamd made holds at least one of. */
const MARKS = ['config.json', 'tasks', 'inbox', 'run', 'logs', 'cursors', 'sessions', 'settings.json', 'roles', 'cron.json', 'jobs', 'memory', 'skills'];

export type FolderUse = 'read' | 'write';

/**
 * Checks the state folder a command is about to use. A read-only command needs an existing
 * state folder and creates nothing in it; a command that changes state creates a missing one
 * (saying so, once, through `told`) or takes an empty one, but never a folder that holds other
 * things (`--dir` naming a project by mistake) and never a file.
 */
export function checkStateFolder(paths: StatePaths, use: FolderUse, told: (text: string) => void): void {
  const root = paths.root;
  const stat = statOf(root);
  if (stat && !stat.isDirectory())
    throw new TeamdError('USAGE', `${root} is a file, not a state folder: pass --dir <folder> (a workspace's state folder is usually <workspace>/.team)`);
  if (!stat) {
    if (use === 'read')
      throw new TeamdError(
        'STATE_DIR_MISSING',
        `no teamd state folder at ${root}: pass --dir <path> (or set TEAMD_DIR) to use another one, or add a task to create it`,
        { details: { dir: root } },
      );
    ensurePrivateDir(root);
    told(`teamd: created the state folder ${root}\n`);
    return;
  }
  const entries = readEntries(root);
  if (entries.length > 0 && !entries.some((name) => MARKS.includes(name)))
    throw new TeamdError(
      'STATE_DIR_MISSING',
      `${root} is not a teamd state folder (it has none of ${MARKS.slice(0, 3).join(', ')}): pass --dir <the state folder>, usually <workspace>/.team`,
      { details: { dir: root } },
    );
  if (use === 'write') ensurePrivateDir(root);
}

function statOf(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function readEntries(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EACCES')
      throw new TeamdError('IO', `cannot read the state folder ${dir}: permission denied; run teamd as the user who owns it`, { cause: error });
    throw error;
  }
}
