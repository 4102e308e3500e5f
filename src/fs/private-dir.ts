import fs from 'node:fs';

/**
 * Creates a folder only its owner can enter (0700, whatever the umask), and tightens one that
 * exists with wider rights: the state folder holds the board, the inboxes, the protocol key
 * and the control socket, none of them for other local users.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(dir);
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fs.chmodSync(dir, 0o700);
}
