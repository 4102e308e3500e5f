import fs from 'node:fs';
import { isNodeError, TeamdError } from '../../errors.js';
import { MAX_LINE_BYTES, type MessageType } from '../../contracts/message.js';
import { parseInboxChunk, type ParsedMessage, type SkippedLine } from './inbox-parser.js';
import { openRegular } from '../../fs/open-regular.js';

export interface InboxRead {
  readonly messages: ParsedMessage[];
  readonly skipped: SkippedLine[];
  /** Offset just past the last complete line read. */
  readonly end: number;
  /** Current size of the file; more than `end` when a line is still being written (or torn). */
  readonly size: number;
}

const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Reads every complete line of an inbox from `offset` to the end of the file, in bounded chunks;
 * with `only`, just the messages of those types (inbox-parser.ts).
 */
export function readInboxFrom(file: string, offset: number, only?: readonly MessageType[]): InboxRead {
  let fd: number;
  try {
    fd = openRegular(file, 'read');
  } catch (error) {
    if (isNodeError(error, 'ENOENT')) return { messages: [], skipped: [], end: offset, size: 0 };
    if (error instanceof TeamdError) throw error;
    throw new TeamdError('IO', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const size = fs.fstatSync(fd).size;
    const messages: ParsedMessage[] = [];
    const skipped: SkippedLine[] = [];
    let position = offset;
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(0, size - offset)));
    while (position < size) {
      const length = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
      if (length === 0) break;
      const chunk = parseInboxChunk(buffer.subarray(0, length), position, only);
      messages.push(...chunk.messages);
      skipped.push(...chunk.skipped);
      if (chunk.end > position) {
        position = chunk.end;
        continue;
      }
      // No newline in a whole chunk: either a line still being written, or garbage longer than any record.
      if (length < buffer.length || size - position <= MAX_LINE_BYTES) break;
      const next = findNewline(fd, position + length, size);
      if (next === -1) break;
      skipped.push({ offset: position, reason: `a line of ${next - position} bytes, longer than any message`, preview: '' });
      position = next + 1;
    }
    return { messages, skipped, end: position, size };
  } finally {
    fs.closeSync(fd);
  }
}

function findNewline(fd: number, from: number, size: number): number {
  const buffer = Buffer.alloc(64 * 1024);
  for (let position = from; position < size;) {
    const length = fs.readSync(fd, buffer, 0, buffer.length, position);
    const at = buffer.subarray(0, length).indexOf(0x0a);
    if (at !== -1) return position + at;
    position += length;
  }
  return -1;
}

/**
 * Whether a line starts at `offset`: the byte before it ends one. A cursor or a scan only ever
 * stops after a whole record; one that does not (a hand-edited cursor, another file in the
 * inbox's place) would cut a message. A file that cannot be opened says yes: its read reports it.
 */
export function lineStartsAt(file: string, offset: number): boolean {
  let fd: number;
  try {
    fd = openRegular(file, 'read');
  } catch {
    return true;
  }
  try {
    const byte = Buffer.alloc(1);
    return fs.readSync(fd, byte, 0, 1, offset - 1) === 1 && byte[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}
