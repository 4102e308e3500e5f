import fs from 'node:fs';

/** Environment marker a teammate puts on every command it runs; inherited by all their children. */
export const SPAWNED_BY_ENV = 'TEAMD_SPAWNED_BY';

export function spawnMarker(workerPid: number, stateDir: string): string {
  return `${workerPid}@${stateDir}`;
}

/**
 * Kills processes left behind by a teammate that died without stopping its commands (kill -9
 * cannot run cleanup): they carry its marker in their environment. Linux /proc, this host only.
 */
export function killLeftovers(marker: string): number[] {
  const needle = `${SPAWNED_BY_ENV}=${marker}\0`;
  const killed: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return killed;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (!`${environ}\0`.includes(needle)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}
