import fs from 'node:fs';
import { TeamdError } from '../errors.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_APPEND, O_CREAT, O_NONBLOCK } = fs.constants;

/** How a file is opened: to read it, to append to it, or both (the last two create it). */
const FLAGS = { read: O_RDONLY, append: O_WRONLY | O_APPEND | O_CREAT, 'read-append': O_RDWR | O_APPEND | O_CREAT } as const;

/**
 * Opens one of teamd's files without ever waiting, and only if it is a regular file. A plain
 * open of a FIFO put in a task's, an inbox's or a log's place blocks until something opens its
 * other end: the daemon and every teammate that looked would freeze, deaf to signals and IPC.
 * With O_NONBLOCK the open returns at once (or fails with ENXIO, to append with no reader), and a
 * FIFO, device or folder is then refused: a TeamdError (IO) naming the file. O_NONBLOCK changes
 * nothing for a regular file. Other failures (ENOENT...) are the system's own errors.
 */
export function openRegular(file: string, how: keyof typeof FLAGS, mode = 0o600): number {
  const fd = fs.openSync(file, FLAGS[how] | O_NONBLOCK, mode);
  let regular = false;
  try {
    regular = fs.fstatSync(fd).isFile();
  } finally {
    if (!regular) fs.closeSync(fd);
  }
  if (!regular) throw notRegular(file);
  return fd;
}

/** Creates the file if it is missing (an empty regular file), as `touch` would without its times. */
export function touchRegular(file: string, mode = 0o600): void {
  fs.closeSync(openRegular(file, 'append', mode));
}

/** The open flags of a read that must not wait on a FIFO (checked on the open file afterwards). */
export const READ_NONBLOCK = O_RDONLY | O_NONBLOCK;

function notRegular(file: string): TeamdError {
  return new TeamdError('IO', `${file} is not a regular file (a FIFO, a device or a folder is in its place): move it aside`);
}
