import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runTeamd } from '../helpers/processes.js';

describe('teamd demo (board walkthrough)', () => {
  it('runs offline to the end: every task completed, the stale claim refused, the folder kept with --keep', async () => {
    const result = await runTeamd(['demo', '--keep']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('STALE_CLAIM');
    const kept = /The demo state folder was kept: (\S+)/.exec(result.stdout)?.[1];
    expect(kept).toBeDefined();
    try {
      const listed = await runTeamd(['task', 'list', '--json', '--dir', kept!]);
      const tasks = JSON.parse(listed.stdout) as { status: string }[];
      expect(tasks.map((task) => task.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    } finally {
      fs.rmSync(kept!.replace(/\/\.team$/, ''), { recursive: true, force: true });
    }
  });
});
