import { knots, type ImportGraph } from './import-graph.js';

/**
 * The floors of src/, lowest first: a file may import from its own floor and the floors below,
 * never from one above, and no import (type imports included) closes a cycle between files.
 * A file's floor is that of the longest prefix below that names it. docs/architecture.md
 * opens with the same list.
 */
export const FLOORS: readonly { readonly name: string; readonly paths: readonly string[] }[] = [
  { name: 'errors', paths: ['src/errors.ts'] },
  { name: 'contracts', paths: ['src/contracts/'] },
  { name: 'platform', paths: ['src/platform/'] },
  { name: 'base', paths: ['src/log/', 'src/paths.ts', 'src/text.ts', 'src/fs/', 'src/proc/', 'src/watch/'] },
  { name: 'domain', paths: ['src/domain/'] },
  { name: 'records', paths: ['src/roster/', 'src/worktree/', 'src/logs/', 'src/memory/', 'src/skills/', 'src/jobs/', 'src/cron/'] },
  { name: 'stores', paths: ['src/store/'] },
  {
    name: 'parts',
    paths: [
      'src/model/',
      'src/agent/',
      'src/sandbox/',
      'src/permissions/',
      'src/settings/',
      'src/hooks/',
      'src/policy/',
      'src/tools/',
      'src/mcp/',
      'src/inbox/',
      'src/lead/',
    ],
  },
  { name: 'processes', paths: ['src/teammate/', 'src/supervisor/', 'src/daemon/', 'src/notify/'] },
  { name: 'commands', paths: ['src/cli/', 'src/demo/', 'src/ui/'] },
];

export interface LayerViolation {
  readonly kind: 'cycle' | 'upward' | 'no-floor';
  readonly text: string;
}

/** The floor of a file (its index in FLOORS), or null when no floor names it. */
export function floorOf(file: string): number | null {
  let best: { floor: number; length: number } | null = null;
  FLOORS.forEach((floor, index) => {
    for (const prefix of floor.paths) {
      const matches = prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
      if (matches && (best === null || prefix.length > best.length)) best = { floor: index, length: prefix.length };
    }
  });
  return (best as { floor: number } | null)?.floor ?? null;
}

/** Every way the graph breaks the floors: cycles between files, imports from a lower floor to a higher one, files on no floor. */
export function checkLayers(graph: ImportGraph): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const file of graph.files) {
    if (floorOf(file.file) === null)
      violations.push({ kind: 'no-floor', text: `${file.file} is on no floor: add its folder to FLOORS in bench/shape/layers.ts` });
  }
  for (const edge of graph.edges) {
    const from = floorOf(edge.from);
    const to = floorOf(edge.to);
    if (from === null || to === null || to <= from) continue;
    violations.push({
      kind: 'upward',
      text: `${edge.from}:${edge.line} (${FLOORS[from]!.name}) imports ${edge.typeOnly ? 'types from ' : ''}${edge.to} (${FLOORS[to]!.name}), a higher floor`,
    });
  }
  const cycles = knots(
    graph.files.map((file) => file.file),
    graph.edges.map((edge) => [edge.from, edge.to] as const),
  );
  for (const cycle of cycles) violations.push({ kind: 'cycle', text: `import cycle between ${cycle.length} files: ${cycle.join(', ')}` });
  return violations;
}
