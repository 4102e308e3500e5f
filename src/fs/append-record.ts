import fs from 'node:fs';
import { TeamdError, writtenNotSynced } from '../errors.js';
import { openRegular } from './open-regular.js';

const NEWLINE = 0x0a;

/**
 * Appends one newline-terminated record with a single write(2) on an O_APPEND descriptor, so
 * concurrent appenders never interleave. If the file does not end in a newline, a writer died
 * mid-record: the record is prefixed with one, so it starts on a line of its own instead of
 * gluing onto the torn fragment. (At worst, racing a live writer, this adds an empty line.)
 */
export function appendRecordSync(file: string, record: string, options: { durable: boolean }): void {
  const fd = openRegular(file, 'read-append');
  try {
    const size = fs.fstatSync(fd).size;
    let data = Buffer.from(record, 'utf8');
    if (endsTorn(fd, size)) data = Buffer.concat([Buffer.from('\n'), data]);
    const written = fs.writeSync(fd, data);
    if (written !== data.length) {
      throw new TeamdError('IO', `short write to ${file}: ${written} of ${data.length} bytes (disk full?); the next append repairs the tail`);
    }
    if (options.durable) syncAppended(fd, file);
  } finally {
    fs.closeSync(fd);
  }
}

/** The record is in the file (every reader sees it) before the sync: a failed sync does not undo it. */
function syncAppended(fd: number, file: string): void {
  try {
    fs.fdatasyncSync(fd);
  } catch (error) {
    throw writtenNotSynced(`a record appended to ${file}`, error);
  }
}

/** An open file of `size` bytes ends in part of a record: a writer died, or the disk cut it short, mid-record. */
export function endsTorn(fd: number, size: number = fs.fstatSync(fd).size): boolean {
  return size > 0 && !endsWithNewline(fd, size);
}

function endsWithNewline(fd: number, size: number): boolean {
  const last = Buffer.alloc(1);
  fs.readSync(fd, last, 0, 1, size - 1);
  return last[0] === NEWLINE;
}
