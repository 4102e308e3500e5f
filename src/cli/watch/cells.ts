import stringWidth from 'string-width';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Columns a text takes on a terminal: an emoji or a CJK character takes two, a combining mark
 * none. Terminals disagree on emoji sequences (tmux draws 👍🏽 as 👍 then 🏽, four columns), so
 * a sequence counts as the wider of its joined width and the sum of its parts: a line may end a
 * column short, never wrap.
 */
export function cellWidth(text: string): number {
  let width = 0;
  for (const { segment } of graphemes.segment(text)) width += graphemeWidth(segment);
  return width;
}

function graphemeWidth(grapheme: string): number {
  const joined = stringWidth(grapheme);
  if (grapheme.length <= 1) return joined;
  let parts = 0;
  for (const codePoint of grapheme) parts += stringWidth(codePoint);
  return Math.max(joined, parts);
}

/** One line of plain text for a terminal cell grid: control characters (tabs, newlines, escapes) become spaces. */
export function oneLine(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? ' ' : char;
  }
  return out;
}

/** The text cut to at most `width` columns, never inside a grapheme (an emoji, a flag, é), ending in … when cut. */
export function truncateCells(text: string, width: number): string {
  if (width <= 0) return '';
  if (cellWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = graphemeWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** The text cut or padded with spaces to exactly `width` columns. */
export function padCells(text: string, width: number): string {
  const cut = truncateCells(text, width);
  return cut + ' '.repeat(Math.max(0, width - cellWidth(cut)));
}
