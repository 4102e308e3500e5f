import fs from 'node:fs';
import path from 'node:path';
import { TeamdError } from '../errors.js';

/** Folders created at most in one go: deeper than this is a typo, not a state folder. */
const MAX_NEW_LEVELS = 32;

/**
 * Creates a folder only its owner can enter (0700, whatever the umask), and tightens one that
 * exists with wider rights: the state folder holds the board, the inboxes, the protocol key
 * and the control socket, none of them for other local users.
 *
 * Folders are made one level at a time from the nearest existing one, never with
 * mkdir({recursive}), which spins forever where mkdir fails with ENOENT under an existing
 * parent (/proc, /sys): every such failure is a clear error instead.
 */
export function ensurePrivateDir(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  while (!fs.existsSync(at)) {
    missing.unshift(at);
    const parent = path.dirname(at);
    if (parent === at || missing.length > MAX_NEW_LEVELS) throw cannotCreate(dir, `more than ${MAX_NEW_LEVELS} folders would have to be created`);
    at = parent;
  }
  if (!fs.statSync(at).isDirectory()) throw cannotCreate(dir, `${at} is not a folder`);
  for (const level of missing) {
    try {
      fs.mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotCreate(dir, (error as Error).message);
    }
  }
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) throw cannotCreate(dir, 'it is not a folder');
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.chmodSync(dir, 0o700);
}

function cannotCreate(dir: string, why: string): TeamdError {
  return new TeamdError('STATE_DIR_MISSING', `cannot use ${dir} as a state folder: ${why}; pass --dir <path> (or TEAMD_DIR) naming a folder you can create`, {
    details: { dir },
  });
}
