import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One import of a source file: `typeOnly` when the compiler erases it (type imports, type-only specifiers). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
  readonly line: number;
}

export interface SourceFile {
  readonly file: string;
  readonly lines: number;
  readonly text: string;
}

export interface ImportGraph {
  readonly files: readonly SourceFile[];
  readonly edges: readonly ImportEdge[];
}

/** Every .ts file under `root/dir` (paths relative to root, '/'-separated), sorted. */
function listSources(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}

/** A relative specifier ('./x.js') as the source file it names, or null for a package or a missing file. */
function resolveSpecifier(from: string, specifier: string, known: ReadonlySet<string>): string | null {
  if (!specifier.startsWith('.')) return null;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const candidate of [joined.replace(/\.js$/, '.ts'), joined, `${joined}.ts`, `${joined}/index.ts`]) {
    if (known.has(candidate)) return candidate;
  }
  return null;
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((element) => element.isTypeOnly);
}

/** The specifiers a file imports: static imports and re-exports, `import()` calls and `import('x').T` types. */
function importsOf(file: SourceFile): { specifier: string; typeOnly: boolean; line: number }[] {
  const source = ts.createSourceFile(file.file, file.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: { specifier: string; typeOnly: boolean; line: number }[] = [];
  const add = (literal: ts.Expression, typeOnly: boolean): void => {
    if (ts.isStringLiteralLike(literal))
      found.push({ specifier: literal.text, typeOnly, line: source.getLineAndCharacterOfPosition(literal.getStart()).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importIsTypeOnly(node));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node.moduleSpecifier, exportIsTypeOnly(node));
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) add(node.arguments[0], false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The import graph of the TypeScript files under `root/dir`, edges only between those files. */
export function readImportGraph(root: string, dir: string): ImportGraph {
  const names = listSources(root, dir);
  const known = new Set(names);
  const files = names.map((file): SourceFile => {
    const text = readFileSync(path.join(root, file), 'utf8');
    return { file, text, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) };
  });
  const edges: ImportEdge[] = [];
  for (const file of files) {
    for (const { specifier, typeOnly, line } of importsOf(file)) {
      const to = resolveSpecifier(file.file, specifier, known);
      if (to !== null && to !== file.file) edges.push({ from: file.file, to, typeOnly, line });
    }
  }
  return { files, edges };
}

/** Strongly connected components of more than one node (Tarjan), each sorted, largest first. */
export function knots(nodes: Iterable<string>, arcs: Iterable<readonly [string, string]>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const node of nodes) next.set(node, new Set());
  for (const [from, to] of arcs) {
    if (from === to) continue;
    next.get(from)?.add(to);
    if (!next.has(to)) next.set(to, new Set());
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; children: Iterator<string> }[] = [];
    const enter = (node: string): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: next.get(node)!.values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const child = frame.children.next();
      if (!child.done) {
        if (!index.has(child.value)) enter(child.value);
        else if (onStack.has(child.value)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child.value)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      if (component.length > 1) components.push(component.sort());
    }
  }
  return components.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The folder a file is in, relative to `dir` ('.' for dir itself). */
export function folderOf(file: string, dir: string): string {
  const folder = path.posix.dirname(path.posix.relative(dir, file));
  return folder === '' ? '.' : folder;
}
