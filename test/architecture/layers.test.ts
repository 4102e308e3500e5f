import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { readImportGraph } from '../../bench/shape/import-graph.js';
import { checkLayers, floorOf } from '../../bench/shape/layers.js';
import { REPO_ROOT } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A copy of src/ to break on purpose: the check must see what is done to it. */
function copyOfSrc(): string {
  const root = makeTempDir('teamd-layers-');
  fs.cpSync(path.join(REPO_ROOT, 'src'), path.join(root, 'src'), { recursive: true });
  return root;
}

function prepend(root: string, file: string, line: string): void {
  const at = path.join(root, file);
  fs.writeFileSync(at, `${line}\n${fs.readFileSync(at, 'utf8')}`);
}

describe('the floors of src/ (docs/architecture.md)', () => {
  it('hold: no import cycle between files, no import from a lower floor to a higher one, every file on a floor', () => {
    expect(checkLayers(readImportGraph(REPO_ROOT, 'src')).map((violation) => violation.text)).toEqual([]);
  });

  it('no file in src/ is over 300 lines: a file that grows past it has two reasons to change', () => {
    const graph = readImportGraph(REPO_ROOT, 'src');
    expect(graph.files.filter((file) => file.lines > 300).map((file) => `${file.file} (${file.lines})`)).toEqual([]);
  });

  it('the contracts import nothing of src/ but errors.ts', () => {
    const graph = readImportGraph(REPO_ROOT, 'src');
    const out = graph.edges.filter((edge) => edge.from.startsWith('src/contracts/') && !edge.to.startsWith('src/contracts/'));
    expect(out.map((edge) => edge.to).filter((to) => to !== 'src/errors.ts')).toEqual([]);
  });

  it('fail on an upward import, a type import included, naming the file, the line and both floors', () => {
    const root = copyOfSrc();
    prepend(root, 'src/contracts/task.ts', "import type { TeamStore } from '../store/open/open-store.js';");
    const found = checkLayers(readImportGraph(root, 'src'));
    expect(found).toContainEqual({
      kind: 'upward',
      text: 'src/contracts/task.ts:1 (contracts) imports types from src/store/open/open-store.ts (stores), a higher floor',
    });
    // The store imports the task contract, so the same line also closes a cycle.
    expect(found.map((violation) => violation.kind).sort()).toEqual(['cycle', 'upward']);
  });

  it('fail on a cycle between files of one floor, and on a dynamic import that closes one', () => {
    const root = copyOfSrc();
    prepend(root, 'src/domain/readiness.ts', "import { countListing } from './board-counts.js';");
    prepend(root, 'src/domain/board-counts.ts', "export const later = () => import('./readiness.js');");
    const found = checkLayers(readImportGraph(root, 'src'));
    expect(found.map((violation) => violation.kind)).toEqual(['cycle']);
    expect(found[0]!.text).toContain('src/domain/board-counts.ts, src/domain/readiness.ts');
  });

  it('fail on a folder no floor names', () => {
    const root = copyOfSrc();
    fs.mkdirSync(path.join(root, 'src/gadgets'));
    fs.writeFileSync(path.join(root, 'src/gadgets/gadget.ts'), 'export const gadget = 1;\n');
    expect(checkLayers(readImportGraph(root, 'src')).map((violation) => violation.kind)).toEqual(['no-floor']);
  });

  it('place a file by its longest prefix', () => {
    expect(floorOf('src/errors.ts')).toBe(0);
    expect(floorOf('src/contracts/task.ts')).toBe(1);
    expect(floorOf('src/cli/commands/status.ts')).toBeGreaterThan(floorOf('src/teammate/worker-main.ts')!);
    expect(floorOf('src/nowhere.ts')).toBeNull();
  });
});
