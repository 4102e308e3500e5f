import { messageSchema, RECORD_START, type Message, type MessageType } from '../../contracts/message.js';

export interface ParsedMessage {
  readonly message: Message;
  /** Byte offset just past this message's line: where a cursor goes once it is handled. */
  readonly end: number;
}

export interface SkippedLine {
  readonly offset: number;
  readonly reason: string;
  readonly preview: string;
}

export interface ParsedChunk {
  readonly messages: ParsedMessage[];
  readonly skipped: SkippedLine[];
  /** Offset just past the last complete line; a trailing line without its newline is left for later. */
  readonly end: number;
}

const NEWLINE = 0x0a;

/**
 * Parses the complete lines of `chunk`, which starts at byte `offset` of an inbox. Lines that
 * are not messages are reported and skipped. A line that is a torn fragment with a whole
 * record glued on (a writer died mid-append) yields that record: records start with `{"id":"`.
 *
 * With `only`, just the messages of those types: a line that cannot be one is passed over
 * unparsed (and, if it is not a message at all, unreported).
 */
export function parseInboxChunk(chunk: Buffer, offset: number, only?: readonly MessageType[]): ParsedChunk {
  const messages: ParsedMessage[] = [];
  const skipped: SkippedLine[] = [];
  const mayHold = only === undefined ? null : lineFilter(chunk, only);
  let start = 0;
  for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
    if (mayHold === null || mayHold(start, newline)) {
      const line = chunk.toString('utf8', start, newline);
      const end = offset + newline + 1;
      if (line.trim().length > 0) {
        const parsed = parseLine(line);
        if (parsed.message && (only === undefined || only.includes(parsed.message.type))) messages.push({ message: parsed.message, end });
        if (parsed.skippedReason) skipped.push({ offset: offset + start, reason: parsed.skippedReason, preview: preview(line) });
      }
    }
    start = newline + 1;
  }
  return { messages, skipped, end: offset + start };
}

/**
 * Whether the line at [start, end) of `chunk` may hold a message of one of `types`: it holds a
 * type's name as it is, or a JSON escape (`\u`), which could spell one otherwise. Reading a
 * 50,000-message inbox for a few types parses the few lines that say them, not all (zod's check
 * of each is most of such a read). Lines must be asked in order: each needle's next place in
 * the chunk is found once, so a chunk is scanned once per needle.
 */
function lineFilter(chunk: Buffer, types: readonly MessageType[]): (start: number, end: number) => boolean {
  const needles = [...types.map((type) => Buffer.from(`"${type}"`)), Buffer.from('\\u')];
  const nextAt = needles.map(() => -1);
  return (start, end) =>
    needles.some((needle, i) => {
      if (nextAt[i]! < start) {
        const at = chunk.indexOf(needle, start);
        nextAt[i] = at === -1 ? Infinity : at;
      }
      return nextAt[i]! < end;
    });
}

function parseLine(line: string): { message?: Message; skippedReason?: string } {
  const whole = tryMessage(line);
  if (whole.message) return whole;
  for (let at = line.indexOf(RECORD_START, 1); at !== -1; at = line.indexOf(RECORD_START, at + 1)) {
    const glued = tryMessage(line.slice(at));
    if (glued.message) return { message: glued.message, skippedReason: `torn fragment of ${at} bytes before a whole record` };
  }
  return { skippedReason: whole.skippedReason ?? 'not a message' };
}

function tryMessage(text: string): { message?: Message; skippedReason?: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { skippedReason: 'not JSON (a torn or foreign line)' };
  }
  const parsed = messageSchema.safeParse(json);
  if (parsed.success) return { message: parsed.data };
  const issue = parsed.error.issues[0];
  return { skippedReason: `not a valid message (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})` };
}

function preview(line: string): string {
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
