import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRegular, touchRegular } from '../../src/fs/open-regular.js';
import { readBoundedText, readTextIfExists } from '../../src/fs/read-text.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('openRegular', () => {
  it('never waits on a FIFO: to read it is refused at once, to append with no reader the system refuses (ENXIO)', () => {
    const fifo = path.join(makeTempDir(), 'task_1.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => openRegular(fifo, 'read')).toThrow(/task_1\.json is not a regular file \(a FIFO, a device or a folder is in its place\): move it aside/);
    expect(() => openRegular(fifo, 'append')).toThrow(expect.objectContaining({ code: 'ENXIO' }));
    expect(() => openRegular(fifo, 'read-append')).toThrow(/not a regular file/);
    expect(() => touchRegular(fifo)).toThrow();
    expect(() => readTextIfExists(fifo)).toThrow(/cannot read .*task_1\.json: it is not a regular file/);
    expect(readBoundedText(fifo, 1024)).toMatchObject({ kind: 'unusable', reason: 'it is not a regular file' });
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
  });

  it('refuses a folder and a device, and opens, appends to and creates regular files', () => {
    const dir = makeTempDir();
    expect(() => openRegular(dir, 'read')).toThrow(/is not a regular file/);
    expect(() => openRegular('/dev/null', 'read')).toThrow(/is not a regular file/);
    const file = path.join(dir, 'new.jsonl');
    touchRegular(file);
    const fd = openRegular(file, 'append');
    fs.writeSync(fd, 'one\n');
    fs.closeSync(fd);
    expect(fs.readFileSync(file, 'utf8')).toBe('one\n');
    expect(() => openRegular(path.join(dir, 'missing'), 'read')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
