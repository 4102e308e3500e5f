import { folderOf, knots, readImportGraph, type ImportGraph } from './import-graph.js';
import { checkLayers } from './layers.js';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Code that asks a store which kind it is (`setting.kind`), outside `src/store/`. */
function storeKindBranches(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const file of graph.files) {
    if (file.file.startsWith('src/store/')) continue;
    file.text.split('\n').forEach((line, at) => {
      if (/\b(?:setting|from|to)\.kind\s*[!=]==\s*'(?:files|postgres)'/.test(line)) found.push(`${file.file}:${at + 1}`);
    });
  }
  return found;
}

/** The shape of src/ in figures: sizes, import cycles between files, knots between folders. */
export async function benchShape(): Promise<void> {
  const graph = readImportGraph(process.cwd(), 'src');
  const sizes = graph.files.map((file) => file.lines).sort((a, b) => a - b);
  const largest = [...graph.files].sort((a, b) => b.lines - a.lines).slice(0, 5);
  const fileCycles = knots(
    graph.files.map((file) => file.file),
    graph.edges.map((edge) => [edge.from, edge.to] as const),
  );
  const folders = new Set(graph.files.map((file) => folderOf(file.file, 'src')));
  const folderKnots = (withTypes: boolean): string[][] =>
    knots(
      folders,
      graph.edges.filter((edge) => withTypes || !edge.typeOnly).map((edge) => [folderOf(edge.from, 'src'), folderOf(edge.to, 'src')] as const),
    );
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  print('## shape of src/');
  print(
    `files ${graph.files.length}, lines ${sizes.reduce((a, b) => a + b, 0)}, median ${percentile(sizes, 50)}, p90 ${percentile(sizes, 90)}, over 300: ${sizes.filter((n) => n > 300).length}`,
  );
  print(`largest: ${largest.map((file) => `${file.file} (${file.lines})`).join(', ')}`);
  print(`folders ${folders.size}`);
  print(`file cycles (type imports included): ${fileCycles.length}${fileCycles.map((c) => `\n  ${c.length}: ${c.join(' ')}`).join('')}`);
  for (const withTypes of [false, true]) {
    const found = folderKnots(withTypes);
    print(
      `folder knots, ${withTypes ? 'type imports included' : 'value imports only'}: ${found.length}${found.map((k) => `\n  ${k.length}: ${k.join(' ')}`).join('')}`,
    );
  }
  const branches = storeKindBranches(graph);
  print(`store-kind branches outside src/store: ${branches.length}${branches.map((b) => `\n  ${b}`).join('')}`);
  const violations = checkLayers(graph);
  print(`layering violations: ${violations.length}${violations.map((v) => `\n  ${v.text}`).join('')}`);
}
