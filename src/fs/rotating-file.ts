import fs from 'node:fs';
import { endsTorn } from './append-record.js';
import { openRegular } from './open-regular.js';

export interface Rotation {
  /** A file grows to this size, then it becomes <file>.1 and a new one starts. */
  readonly maxBytes: number;
  /** Rotated files kept: <file>.1 (newest) … <file>.<keep>; older ones are removed. */
  readonly keep: number;
}

export const DEFAULT_ROTATION: Rotation = { maxBytes: 10 * 1024 * 1024, keep: 5 };

/** The files of a rotated log, oldest first, the live one last (only those that exist). */
export function rotatedFiles(file: string, keep: number): string[] {
  const all = [...Array.from({ length: keep }, (_, i) => `${file}.${keep - i}`), file];
  return all.filter((candidate) => fs.existsSync(candidate));
}

/**
 * An append-only file (0600) written with one synchronous write per record, rotated by size. A
 * record is never split across two files. Several processes may append to the same file (the
 * CLI's log): one that finds the file already rotated by another reopens it instead of rotating
 * again. Write errors (a full disk) are thrown to the caller, which decides what to keep; a record
 * the disk cut short stays as a torn line, and the next record starts on a line of its own.
 */
export class RotatingFile {
  private fd: number;
  /** The file ends in part of a record (a write the disk cut short, here or in a process before): the next starts on a new line. */
  private torn: boolean;

  constructor(
    private readonly file: string,
    private readonly rotation: Rotation = DEFAULT_ROTATION,
  ) {
    this.fd = openRegular(file, 'read-append');
    this.torn = endsTorn(this.fd);
  }

  write(text: string): void {
    const data = Buffer.from(this.torn ? `\n${text}` : text, 'utf8');
    // The file's size, not what this writer wrote: another process may append to it too.
    const size = fs.fstatSync(this.fd).size;
    if (size > 0 && size + data.length > this.rotation.maxBytes) this.rotate();
    let done = 0;
    try {
      while (done < data.length) {
        const wrote = fs.writeSync(this.fd, data, done, data.length - done);
        if (wrote === 0) throw Object.assign(new Error(`wrote nothing to ${this.file}`), { code: 'EIO' });
        done += wrote;
      }
    } finally {
      // Cut short (a full disk): the record's start is in the file, and the next one must not glue onto it.
      if (done > 0) this.torn = done < data.length;
    }
  }

  private rotate(): void {
    const mine = fs.fstatSync(this.fd);
    let onDisk: fs.Stats | null = null;
    try {
      onDisk = fs.statSync(this.file);
    } catch {
      // removed by hand: start a new one below
    }
    if (onDisk && onDisk.ino === mine.ino && onDisk.dev === mine.dev) {
      for (let i = this.rotation.keep - 1; i >= 1; i--) renameIfPresent(`${this.file}.${i}`, `${this.file}.${i + 1}`);
      if (this.rotation.keep >= 1) renameIfPresent(this.file, `${this.file}.1`);
      else fs.rmSync(this.file, { force: true });
    }
    fs.closeSync(this.fd);
    this.fd = openRegular(this.file, 'read-append');
    this.torn = endsTorn(this.fd);
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
