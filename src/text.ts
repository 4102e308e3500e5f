/** The first line of a text that is not blank, cut to `max` characters ('…' marks a cut): for one-line summaries. */
export function firstLine(text: string, max: number): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Characters of a logged text kept from its start and from its end (a build error is at the end). */
const HEAD_CHARS = 300;
const TAIL_CHARS = 700;
/** A tool input's string fields (a whole file for write_file) are cut shorter. */
const INPUT_HEAD_CHARS = 120;
const INPUT_TAIL_CHARS = 120;

/** A bounded head and tail of a text, saying how much was left out: never a whole file in the log. */
export function headAndTail(text: string, head = HEAD_CHARS, tail = TAIL_CHARS): string {
  if (text.length <= head + tail + 40) return text;
  return `${text.slice(0, head)}\n… [${text.length - head - tail} characters left out] …\n${text.slice(-tail)}`;
}

/** A tool's input with every long string field cut to a head and tail (for a log line, or a question to the lead). */
export function boundedInput(input: unknown): unknown {
  if (typeof input === 'string') return headAndTail(input, INPUT_HEAD_CHARS, INPUT_TAIL_CHARS);
  if (Array.isArray(input)) return input.slice(0, 20).map(boundedInput);
  if (typeof input === 'object' && input !== null) return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, boundedInput(value)]));
  return input;
}
