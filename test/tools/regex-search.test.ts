import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { searchLines } from '../../src/tools/regex-search.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('searchLines', () => {
  it('finds the matching lines of each file, with file and line number', async () => {
    const outcome = await searchLines(
      'b+a',
      [
        { file: 'x.txt', text: 'abc\nbba\nzz\n' },
        { file: 'y.txt', text: 'ba' },
      ],
      10,
      10_000,
    );
    expect(outcome).toEqual({ kind: 'hits', hits: ['x.txt:2: bba', 'y.txt:1: ba'] });
  });

  it('a pattern that backtracks for ever ends as a timeout, not a hung teammate', async () => {
    const outcome = await searchLines('^(a+)+$', [{ file: 'x.txt', text: `${'a'.repeat(40)}!` }], 10, 300);
    expect(outcome).toEqual({ kind: 'timeout' });
  });

  it('loads node:worker_threads at the first search, not when its module loads (a teammate that never searches does not pay for it)', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        // A CommonJS script, as a teammate's bundle is (with --input-type=module the worker's
        // eval would inherit it and run as an ES module).
        `
        const loaded = () => process.moduleLoadList.includes('NativeModule worker_threads');
        import('./dist/src/tools/regex-search.js').then(async ({ searchLines }) => {
          const before = loaded();
          const outcome = await searchLines('x', [{ file: 'f', text: 'x' }], 5, 10000);
          console.log(JSON.stringify({ before, after: loaded(), outcome }));
        });
        `,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    const result = JSON.parse(out.trim().split('\n').pop()!) as { before: boolean; after: boolean; outcome: unknown };
    expect(result).toEqual({ before: false, after: true, outcome: { kind: 'hits', hits: ['f:1: x'] } });
  });
});
