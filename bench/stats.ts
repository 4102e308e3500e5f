/** Nearest-rank percentile of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function formatMs(ms: number): string {
  return Number.isNaN(ms) ? '-' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[]): string => row.map((cell, column) => cell.padStart(widths[column]!)).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
