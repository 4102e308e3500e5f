import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomicSync } from '../../src/fs/atomic-write.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('writeFileAtomicSync', () => {
  it('replaces the file whole and leaves no temp file behind', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'task_1.json');
    fs.writeFileSync(file, 'old');
    writeFileAtomicSync(file, 'new contents\n');
    expect(fs.readFileSync(file, 'utf8')).toBe('new contents\n');
    expect(fs.readdirSync(dir)).toEqual(['task_1.json']);
  });

  it('keeps the old file when the last check before the rename refuses, and removes the temp file', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'task_1.json');
    fs.writeFileSync(file, 'old');
    let sawTemp = false;
    expect(() =>
      writeFileAtomicSync(file, 'new', () => {
        // The new bytes are on disk under a temp name when the check runs.
        sawTemp = fs.readdirSync(dir).some((name) => name.startsWith('.task_1.json.') && name.endsWith('.tmp'));
        throw new Error('changed meanwhile');
      }),
    ).toThrow('changed meanwhile');
    expect(sawTemp).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('old');
    expect(fs.readdirSync(dir)).toEqual(['task_1.json']);
  });
});
