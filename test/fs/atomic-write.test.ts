import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepDeadTempFiles, writeFileAtomicSync } from '../../src/fs/atomic-write.js';
import { isAlive } from '../../src/proc/process-identity.js';
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

  it("sweeps the temp files of writers that died before renaming, never a live writer's", async () => {
    const dir = makeTempDir();
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.once('exit', resolve));
    const deadTemp = path.join(dir, `.task_1.json.${dead.pid}.0a1b2c3d.tmp`);
    const liveTemp = path.join(dir, `.task_2.json.${process.pid}.0a1b2c3d.tmp`);
    fs.writeFileSync(deadTemp, '{');
    fs.writeFileSync(liveTemp, '{');
    fs.writeFileSync(path.join(dir, 'task_3.json'), '{}');
    expect(sweepDeadTempFiles([dir], isAlive)).toEqual([deadTemp]);
    expect(fs.readdirSync(dir).sort()).toEqual([path.basename(liveTemp), 'task_3.json'].sort());
  });
});
