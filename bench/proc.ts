import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resident memory in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

/**
 * Proportional set size in MiB (Linux): resident memory with each shared page (the node binary,
 * shared libraries) divided among the processes sharing it — what one more process really costs.
 */
export function pssMiB(pid: number): number {
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) / 1024;
}

export function availableMiB(): number {
  const meminfo = fs.readFileSync('/proc/meminfo', 'utf8');
  return Number(/MemAvailable:\s+(\d+)/.exec(meminfo)?.[1] ?? 0) / 1024;
}
