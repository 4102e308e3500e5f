import fs from 'node:fs';
import { isNodeError, TeamdError } from '../errors.js';
import { READ_NONBLOCK } from './open-regular.js';

/** Past this, a file read whole is refused: Node cannot hold 512 MiB as a string, and no file of ours comes near. */
const MAX_TEXT_BYTES = 256 * 1024 * 1024;

/**
 * A file's text, or null when it does not exist; any other failure is an IO error naming the file,
 * as is a FIFO, device or folder in its place (never waited on) or a file past 256 MiB.
 */
export function readTextIfExists(file: string): string | null {
  const read = readBoundedText(file, MAX_TEXT_BYTES);
  if (read.kind === 'missing') return null;
  if (read.kind === 'unusable') throw new TeamdError('IO', `cannot read ${file}: ${read.reason}`);
  return read.text;
}

/** What a bounded read found: no file, its text, or why it was not read (with what fstat said of it). */
export type BoundedRead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'text'; readonly text: string; readonly stat: fs.Stats }
  | { readonly kind: 'unusable'; readonly reason: string; readonly stat: fs.Stats };

const MISSING: BoundedRead = { kind: 'missing' };

/**
 * A file of at most `maxBytes`, for one that is often absent (a task looked for in both of its
 * folders): a stat first, so absence costs no thrown error (each costs tens of microseconds).
 * What is not a regular file, or is larger than `maxBytes`, is not read: it is `unusable`, with
 * the reason. Both are checked on the open file (readBoundedFd), so a bigger file renamed in after
 * the stat is not read either; the open does not wait on a FIFO (open-regular.ts). A file that
 * cannot be opened for a reason of its own (a loop of links, no permission) is `unusable` too.
 * Any other failure is an IO error naming the file.
 */
export function readBoundedText(file: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    if (fs.statSync(file, { throwIfNoEntry: false }) === undefined) return MISSING;
    fd = fs.openSync(file, READ_NONBLOCK);
  } catch (error) {
    // Removed or renamed away between the stat and the open: as absent as before the stat.
    if (isNodeError(error, 'ENOENT')) return MISSING;
    const fault = unreadable(file, error);
    if (fault) return fault;
    throw new TeamdError('IO', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return readBoundedFd(fd, maxBytes);
  } catch (error) {
    throw new TeamdError('IO', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  } finally {
    fs.closeSync(fd);
  }
}

/** What is wrong with this one file, not with the system: a loop of symbolic links, or no right to read it. */
const FILE_FAULTS: Readonly<Record<string, string>> = {
  ELOOP: 'it is a loop of symbolic links',
  EACCES: 'it may not be read (permission denied)',
  EPERM: 'it may not be read (operation not permitted)',
};

/**
 * A failure to open that concerns the file alone, as `unusable` with the link's own lstat (the
 * identity of what is there); null for any other failure (a full table of descriptors, I/O).
 */
function unreadable(file: string, error: unknown): Extract<BoundedRead, { kind: 'unusable' }> | null {
  const reason = FILE_FAULTS[(error as NodeJS.ErrnoException).code ?? ''];
  if (reason === undefined) return null;
  try {
    return { kind: 'unusable', reason, stat: fs.lstatSync(file) };
  } catch {
    return null;
  }
}

/**
 * An open file's text when it is a regular file of at most `maxBytes`, else why not, with its
 * fstat either way (the identity of exactly the version read). Reading a file of hundreds of MB
 * whole would take that much memory in every process that looks, and past V8's longest string
 * (512 MiB) it throws instead of returning. Leaves the descriptor open.
 */
function readBoundedFd(fd: number, maxBytes: number): Exclude<BoundedRead, { kind: 'missing' }> {
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) return { kind: 'unusable', stat, reason: 'it is not a regular file' };
  if (stat.size > maxBytes) return { kind: 'unusable', stat, reason: `it is ${stat.size} bytes, over the limit of ${maxBytes}` };
  return { kind: 'text', stat, text: readAll(fd, stat.size) };
}

/** Reads an open file of known size whole: one read for a file that is not being replaced in place. */
function readAll(fd: number, size: number): string {
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const read = fs.readSync(fd, buffer, filled, size - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.toString('utf8', 0, filled);
}

/** Up to `max` bytes of an open file from `offset`, then closes it: the text, the file's size and the bytes read. */
export function readSliceAndClose(fd: number, offset: number, max: number): { text: string; size: number; length: number } {
  try {
    const size = fs.fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.max(0, Math.min(max, size - offset)));
    const length = buffer.length > 0 ? fs.readSync(fd, buffer, 0, buffer.length, offset) : 0;
    return { text: buffer.subarray(0, length).toString('utf8'), size, length };
  } finally {
    fs.closeSync(fd);
  }
}

/** A file's size, or 0 when it cannot be read (absent, or not there yet): where an append-only file has grown to. */
export function fileSizeOrZero(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
