import fs from 'node:fs';
import { isNodeError, TeamdError } from '../errors.js';

/** A file's text, or null when it does not exist; any other failure is an IO error naming the file. */
export function readTextIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (isNodeError(error, 'ENOENT')) return null;
    throw new TeamdError('IO', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Like readTextIfExists, for a file that is often absent (a task looked for in both of its
 * folders): a stat first, so absence costs no thrown error (each costs tens of microseconds).
 */
export function readTextIfPresent(file: string): string | null {
  try {
    if (fs.statSync(file, { throwIfNoEntry: false }) === undefined) return null;
  } catch (error) {
    throw new TeamdError('IO', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  return readTextIfExists(file);
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
