import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RotatingFile, rotatedFiles } from '../../src/fs/rotating-file.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('a log file rotated by size', () => {
  it('keeps each file under the size, keeps N rotated files, and never splits a record', () => {
    const file = path.join(makeTempDir(), 'alice.log');
    const out = new RotatingFile(file, { maxBytes: 1000, keep: 3 });
    for (let i = 0; i < 200; i++) out.write(`${JSON.stringify({ i, pad: 'x'.repeat(40) })}\n`);
    const files = rotatedFiles(file, 3);
    expect(files.map((f) => path.basename(f))).toEqual(['alice.log.3', 'alice.log.2', 'alice.log.1', 'alice.log']);
    for (const f of files) expect(fs.statSync(f).size).toBeLessThanOrEqual(1000);
    expect(fs.existsSync(`${file}.4`)).toBe(false);
    const records = files.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean)).map((line) => JSON.parse(line) as { i: number });
    // The newest records, in order, each whole: the oldest files fell off the end.
    const ids = records.map((r) => r.i);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, k) => 200 - ids.length + k));
    expect(ids.at(-1)).toBe(199);
  });

  it('two writers of one file (the CLI log from two commands): one rotates, the other follows it; every record lands whole, once', () => {
    const file = path.join(makeTempDir(), 'cli.log');
    const a = new RotatingFile(file, { maxBytes: 2000, keep: 50 });
    const b = new RotatingFile(file, { maxBytes: 2000, keep: 50 });
    for (let i = 0; i < 300; i++) (i % 3 === 0 ? b : a).write(`${JSON.stringify({ i, by: i % 3 === 0 ? 'b' : 'a' })}\n`);
    const files = rotatedFiles(file, 50);
    const ids = files
      .flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter(Boolean))
      .map((line) => (JSON.parse(line) as { i: number }).i)
      .sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 300 }, (_, k) => k));
    for (const f of files) expect(fs.statSync(f).size).toBeLessThanOrEqual(2000 + 40);
  });
});
