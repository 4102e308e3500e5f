import fs from 'node:fs';
import { WORKER_OF_ENV } from './worker-env.js';

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
  return killMatching((environ) => environ.includes(needle));
}

/**
 * Kills every process an earlier daemon of this state folder left: its teammates (a stopped
 * one does not notice its daemon is gone) and every command they started. Run at start,
 * before any task is resumed, so nothing runs twice side by side.
 */
export function killLeftoversOfStateDir(stateDir: string): number[] {
  const worker = `${WORKER_OF_ENV}=${stateDir}\0`;
  const command = new RegExp(`(?:^|\\0)${SPAWNED_BY_ENV}=\\d+@${escapeRegExp(stateDir)}\\0`);
  return killMatching((environ) => environ.includes(worker) || command.test(environ));
}

function killMatching(matches: (environ: string) => boolean): number[] {
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
    if (!matches(`${environ}\0`)) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
