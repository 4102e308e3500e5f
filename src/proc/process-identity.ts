import fs from 'node:fs';
import { isNodeError } from '../errors.js';

/**
 * A process as this host knows it: its pid and its start time in clock ticks since boot
 * (/proc/<pid>/stat field 22). A pid is reused; a pid with the same start time is not.
 * `start` is null where /proc is not available; then only the pid is compared.
 */
export interface ProcessIdentity {
  readonly pid: number;
  readonly start: number | null;
}

/** Field 22 of /proc/<pid>/stat, or null when the process is gone or /proc is not there. */
export function processStartTime(pid: number): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]);
  return Number.isFinite(start) ? start : null;
}

/** The state letter of /proc/<pid>/stat (R, S, T, Z...), or null. */
export function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null;
  } catch {
    return null;
  }
}

/** Whether a process is stopped (SIGSTOP, Ctrl-Z, a debugger): alive, but it runs nothing until continued. */
export function isStopped(pid: number): boolean {
  const state = processState(pid);
  return state === 'T' || state === 't';
}

export function selfIdentity(): ProcessIdentity {
  return { pid: process.pid, start: processStartTime(process.pid) };
}

/** Whether a pid names a live process on this host. A zombie (exited, not yet reaped) is not alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (!isNodeError(error, 'EPERM')) return false;
  }
  return processState(pid) !== 'Z';
}

/** Whether exactly this process (not a later one that reuses its pid) is still alive. */
export function isSameProcessAlive(identity: ProcessIdentity): boolean {
  if (!isAlive(identity.pid)) return false;
  if (identity.start === null) return true;
  const start = processStartTime(identity.pid);
  return start === null || start === identity.start;
}

/** The command line of a live process (NUL-separated arguments split), or null. */
export function processArgv(pid: number): string[] | null {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((arg) => arg.length > 0);
  } catch {
    return null;
  }
}
