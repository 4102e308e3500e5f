import { messageSchema, RECORD_START, type Message } from './message.js';

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
 */
export function parseInboxChunk(chunk: Buffer, offset: number): ParsedChunk {
  const messages: ParsedMessage[] = [];
  const skipped: SkippedLine[] = [];
  let start = 0;
  for (let newline = chunk.indexOf(NEWLINE, start); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
    const line = chunk.toString('utf8', start, newline);
    const end = offset + newline + 1;
    if (line.trim().length > 0) {
      const parsed = parseLine(line);
      if (parsed.message) messages.push({ message: parsed.message, end });
      if (parsed.skippedReason) skipped.push({ offset: offset + start, reason: parsed.skippedReason, preview: preview(line) });
    }
    start = newline + 1;
  }
  return { messages, skipped, end: offset + start };
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
