import fs from 'node:fs';
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
 * again. Write errors (a full disk) are thrown to the caller, which decides what to keep.
 */
export class RotatingFile {
  private fd: number;

  constructor(
    private readonly file: string,
    private readonly rotation: Rotation = DEFAULT_ROTATION,
  ) {
    this.fd = openRegular(file, 'append');
  }

  write(text: string): void {
    const data = Buffer.from(text, 'utf8');
    // The file's size, not what this writer wrote: another process may append to it too.
    const size = fs.fstatSync(this.fd).size;
    if (size > 0 && size + data.length > this.rotation.maxBytes) this.rotate();
    let done = 0;
    while (done < data.length) done += fs.writeSync(this.fd, data, done, data.length - done);
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
    this.fd = openRegular(this.file, 'append');
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
