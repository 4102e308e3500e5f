import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
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

  it('a record the disk cut short stays a torn line of its own: the next record does not glue onto it', () => {
    const file = path.join(makeTempDir(), 'alice.log');
    const out = new RotatingFile(file);
    out.write('{"i":1}\n');
    // The disk fills in the middle of the next record: write(2) takes part of it, then refuses.
    const realWrite = fs.writeSync.bind(fs) as (fd: number, data: Buffer, offset: number, length: number) => number;
    let calls = 0;
    const write = vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: Buffer, offset: number, length: number) => {
      calls += 1;
      if (calls === 1) return realWrite(fd, data, offset, Math.floor(length / 2));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as typeof fs.writeSync);
    expect(() => out.write('{"i":2,"pad":"xxxxxxxxxxxxxxxx"}\n')).toThrow(/ENOSPC/);
    write.mockRestore();
    out.write('{"i":3}\n');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines[0]).toBe('{"i":1}');
    expect(lines[1]).toMatch(/^\{"i":2,"pad":"x+$/);
    expect(lines[2]).toBe('{"i":3}');
    // A process that opens the file after one that was cut short (the CLI's shared log) starts on a new line too.
    fs.appendFileSync(file, '{"i":4,"cut');
    new RotatingFile(file).write('{"i":5}\n');
    expect(fs.readFileSync(file, 'utf8').split('\n').slice(3)).toEqual(['{"i":4,"cut', '{"i":5}', '']);
  });
});
