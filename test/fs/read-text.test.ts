import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBoundedText } from '../../src/fs/read-text.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('readBoundedText', () => {
  it('reads a regular file up to the limit, and says nothing is there when nothing is', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'a.json');
    fs.writeFileSync(file, 'é'.repeat(5)); // 10 bytes
    const read = readBoundedText(file, 10);
    expect(read.kind === 'text' && read.text).toBe('ééééé');
    expect(readBoundedText(path.join(dir, 'none.json'), 10)).toEqual({ kind: 'missing' });
  });

  it('does not read a file past the limit, or what is not a regular file, and says why', () => {
    const dir = makeTempDir();
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 600 * 1024 * 1024); // sparse: longer than V8's longest string
    const tooBig = readBoundedText(big, 1024);
    expect(tooBig.kind === 'unusable' && tooBig.reason).toBe('it is 629145600 bytes, over the limit of 1024');
    fs.writeFileSync(path.join(dir, 'eleven.json'), '12345678901');
    expect(readBoundedText(path.join(dir, 'eleven.json'), 10).kind).toBe('unusable');
    fs.mkdirSync(path.join(dir, 'folder.json'));
    const folder = readBoundedText(path.join(dir, 'folder.json'), 1024);
    expect(folder.kind === 'unusable' && folder.reason).toBe('it is not a regular file');
  });

  it('reads through a symbolic link to a regular file, calls a dangling one missing and a loop unusable', () => {
    const dir = makeTempDir();
    fs.writeFileSync(path.join(dir, 'target.json'), '{}');
    fs.symlinkSync(path.join(dir, 'target.json'), path.join(dir, 'link.json'));
    fs.symlinkSync(path.join(dir, 'gone.json'), path.join(dir, 'dangling.json'));
    const linked = readBoundedText(path.join(dir, 'link.json'), 10);
    expect(linked.kind === 'text' && linked.text).toBe('{}');
    expect(readBoundedText(path.join(dir, 'dangling.json'), 10)).toEqual({ kind: 'missing' });
    fs.symlinkSync('loop.json', path.join(dir, 'loop.json'));
    const loop = readBoundedText(path.join(dir, 'loop.json'), 10);
    expect(loop.kind === 'unusable' && [loop.reason, loop.stat.isSymbolicLink()]).toEqual(['it is a loop of symbolic links', true]);
  });
});
