/** The first line of a text that is not blank, cut to `max` characters ('…' marks a cut): for one-line summaries. */
export function firstLine(text: string, max: number): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
