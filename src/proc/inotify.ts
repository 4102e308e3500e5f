import fs from 'node:fs';

/** inotify use of one process, or of a user's processes together. */
export interface InotifyUse {
  /** inotify instances (one per watching process: libuv opens one per event loop). */
  readonly instances: number;
  readonly watches: number;
}

/** Per-user limits (`fs.inotify.*`); null where they cannot be read (not Linux). */
export interface InotifyLimits {
  readonly maxInstances: number;
  readonly maxWatches: number;
}

/**
 * What a team needs: the daemon watches tasks/, inbox/ and the state folder itself (for
 * cron.json): three plain watches; each teammate watches only its own inbox file (one). Neither
 * grows with the board.
 */
export function teamInotifyNeeds(members: number): InotifyUse {
  return { instances: members + 1, watches: members + 3 };
}

export function readInotifyLimits(proc = '/proc'): InotifyLimits | null {
  const read = (name: string): number | null => {
    try {
      const value = Number(fs.readFileSync(`${proc}/sys/fs/inotify/${name}`, 'utf8').trim());
      return Number.isInteger(value) && value > 0 ? value : null;
    } catch {
      return null;
    }
  };
  const maxInstances = read('max_user_instances');
  const maxWatches = read('max_user_watches');
  return maxInstances === null || maxWatches === null ? null : { maxInstances, maxWatches };
}

/** The inotify instances and watches a process holds (from /proc/<pid>/fdinfo); zero when it cannot be read. */
export function inotifyUseOf(pid: number, proc = '/proc'): InotifyUse {
  let instances = 0;
  let watches = 0;
  let fds: string[];
  try {
    fds = fs.readdirSync(`${proc}/${pid}/fd`);
  } catch {
    return { instances, watches };
  }
  for (const fd of fds) {
    try {
      if (fs.readlinkSync(`${proc}/${pid}/fd/${fd}`) !== 'anon_inode:inotify') continue;
      instances++;
      const info = fs.readFileSync(`${proc}/${pid}/fdinfo/${fd}`, 'utf8');
      for (const line of info.split('\n')) if (line.startsWith('inotify wd:')) watches++;
    } catch {
      // closed meanwhile
    }
  }
  return { instances, watches };
}

/** inotify use of every process of this user (what counts against the per-user limits). */
export function inotifyUseOfUser(uid: number, proc = '/proc'): InotifyUse {
  let instances = 0;
  let watches = 0;
  let entries: string[];
  try {
    entries = fs.readdirSync(proc);
  } catch {
    return { instances, watches };
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.statSync(`${proc}/${entry}`).uid !== uid) continue;
    } catch {
      continue;
    }
    const use = inotifyUseOf(Number(entry), proc);
    instances += use.instances;
    watches += use.watches;
  }
  return { instances, watches };
}

/**
 * One line saying which limit the team would exceed and how to raise it, or null when it fits.
 * `inUse` is what this user's processes hold already (the team's own running processes included).
 */
export function inotifyShortfall(needs: InotifyUse, inUse: InotifyUse, limits: InotifyLimits | null): string | null {
  if (limits === null) return null;
  const problems: string[] = [];
  if (inUse.instances + needs.instances > limits.maxInstances) {
    const want = nextPowerOfTwo(inUse.instances + needs.instances + 16);
    problems.push(
      `${needs.instances} inotify instances needed, ${Math.max(0, limits.maxInstances - inUse.instances)} of ${limits.maxInstances} free for this user (raise it: sudo sysctl fs.inotify.max_user_instances=${want})`,
    );
  }
  if (inUse.watches + needs.watches > limits.maxWatches) {
    const want = nextPowerOfTwo(inUse.watches + needs.watches + 1024);
    problems.push(
      `${needs.watches} inotify watches needed, ${Math.max(0, limits.maxWatches - inUse.watches)} of ${limits.maxWatches} free (raise it: sudo sysctl fs.inotify.max_user_watches=${want})`,
    );
  }
  if (problems.length === 0) return null;
  return `${problems.join('; ')}; until then the teammates that cannot watch find work only at the safety re-check (recheckMs); make it last with a file in /etc/sysctl.d/`;
}

function nextPowerOfTwo(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(2, n)));
}

/** The start-up check: null when a team of `members` fits this user's inotify limits, else what to raise. */
export function inotifyWarning(members: number, uid = process.getuid?.() ?? -1): string | null {
  if (uid < 0) return null;
  return inotifyShortfall(teamInotifyNeeds(members), inotifyUseOfUser(uid), readInotifyLimits());
}
