import fs from 'node:fs';
import { openRegular } from '../fs/open-regular.js';

/** Bytes read per step from the end: memory stays at this plus the lines kept, whatever the file's size. */
const CHUNK_BYTES = 64 * 1024;
/** A line longer than this is cut (a runaway line must not take the reader's memory). */
const MAX_LINE_BYTES = 1024 * 1024;

export type LineVerdict = 'keep' | 'skip' | 'stop';

/**
 * The last `count` lines of `files` (oldest file first, the live one last) that `judge` keeps,
 * in file order, reading each file backwards from its end in chunks. `judge` may say `stop`
 * (a line older than --since): nothing before it is read.
 */
export function lastLines(files: readonly string[], count: number, judge: (line: string) => LineVerdict): string[] {
  const kept: string[] = [];
  for (let f = files.length - 1; f >= 0 && kept.length < count; f--) {
    if (readFileBackwards(files[f]!, count - kept.length, judge, kept) === 'stop') break;
  }
  return kept.reverse();
}

/** Pushes kept lines newest first into `into`; says whether the judge stopped the reading. */
function readFileBackwards(file: string, wanted: number, judge: (line: string) => LineVerdict, into: string[]): 'stop' | 'more' {
  let fd: number;
  try {
    fd = openRegular(file, 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'more';
    throw error;
  }
  try {
    let position = fs.fstatSync(fd).size;
    let tail = Buffer.alloc(0);
    let found = 0;
    const take = (raw: Buffer): 'stop' | 'more' => {
      if (raw.length === 0) return 'more';
      const line = raw.subarray(0, MAX_LINE_BYTES).toString('utf8');
      const verdict = judge(line);
      if (verdict === 'stop') return 'stop';
      if (verdict === 'keep') {
        into.push(line);
        found++;
      }
      return 'more';
    };
    while (position > 0 && found < wanted) {
      const size = Math.min(CHUNK_BYTES, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      fs.readSync(fd, chunk, 0, size, position);
      let buffer = Buffer.concat([chunk, tail]);
      let end = buffer.length;
      for (let at = buffer.lastIndexOf(0x0a, end - 1); at !== -1 && found < wanted; at = buffer.lastIndexOf(0x0a, end - 1)) {
        if (take(buffer.subarray(at + 1, end)) === 'stop') return 'stop';
        end = at;
        if (end === 0) break;
      }
      buffer = buffer.subarray(0, end);
      // A line longer than the cap keeps only its start: nothing grows without bound.
      tail = buffer.length > MAX_LINE_BYTES ? Buffer.from(buffer.subarray(0, MAX_LINE_BYTES)) : Buffer.from(buffer);
    }
    if (position === 0 && found < wanted && take(tail) === 'stop') return 'stop';
    return 'more';
  } finally {
    fs.closeSync(fd);
  }
}
