import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inotifyShortfall, inotifyUseOf, readInotifyLimits, teamInotifyNeeds } from '../../src/proc/inotify.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('inotify accounting', () => {
  it('a team needs one instance and one watch per teammate, and the daemon one instance and three watches (tasks/, inbox/, the state folder): nothing grows with the board', () => {
    expect(teamInotifyNeeds(100)).toEqual({ instances: 101, watches: 103 });
  });

  it('names the limit a team would exceed and the sysctl that raises it', () => {
    const limits = { maxInstances: 128, maxWatches: 8192 };
    expect(inotifyShortfall(teamInotifyNeeds(100), { instances: 10, watches: 50 }, limits)).toBeNull();
    const short = inotifyShortfall(teamInotifyNeeds(150), { instances: 10, watches: 50 }, limits);
    expect(short).toContain('151 inotify instances needed, 118 of 128 free');
    expect(short).toContain('sudo sysctl fs.inotify.max_user_instances=256');
    expect(short).not.toContain('max_user_watches');
    const watches = inotifyShortfall(teamInotifyNeeds(10), { instances: 0, watches: 8190 }, limits);
    expect(watches).toContain('fs.inotify.max_user_watches=16384');
    expect(inotifyShortfall(teamInotifyNeeds(1000), { instances: 0, watches: 0 }, null)).toBeNull();
  });

  it('counts the instances and watches a live process holds, from /proc', () => {
    const before = inotifyUseOf(process.pid);
    const dirs = [makeTempDir(), makeTempDir(), makeTempDir()];
    const watchers = dirs.map((dir) => fs.watch(dir));
    try {
      const during = inotifyUseOf(process.pid);
      expect(during.watches - before.watches).toBe(3);
      expect(during.instances).toBeGreaterThanOrEqual(1);
    } finally {
      for (const watcher of watchers) watcher.close();
    }
    expect(readInotifyLimits()?.maxInstances).toBeGreaterThan(0);
    expect(inotifyUseOf(2 ** 22 + 12345)).toEqual({ instances: 0, watches: 0 });
  });
});
