import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newTask } from '../src/contracts/task.js';
import { TaskStore } from '../src/store/files/task-store.js';
import { statePaths } from '../src/paths.js';
import { startBenchChild } from './child.js';
import { formatMs, percentile, table } from './stats.js';

const TASKS = Number(process.env.BENCH_TASKS ?? 500);
/** Which racer counts and claim modes to run, e.g. BENCH_RACERS=8 BENCH_MODES=locked; all by default. */
const RACER_COUNTS = listFromEnv('BENCH_RACERS', ['1', '4', '8']).map(Number);
const MODES = listFromEnv('BENCH_MODES', ['locked', 'unlocked']) as ('locked' | 'unlocked')[];
/** Each configuration runs this many times; the table shows every run so the spread is visible. */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
const RACER = path.join(import.meta.dirname, 'board-racer.js');

interface RunResult {
  readonly mode: 'locked' | 'unlocked';
  readonly racers: number;
  readonly claims: number;
  readonly distinct: number;
  readonly tornReads: number;
  readonly wallMs: number;
  readonly latencies: number[];
  /** User + system CPU time of all racers together. */
  readonly cpuMs: number;
  readonly inodeMicros: number;
}

interface RacerReport {
  readonly claims: [number, number][];
  readonly tornReads: number;
  readonly cpuMs: number;
}

/**
 * Writes the task files `task add` would write, without its per-task lock folder and id-counter
 * rewrite: on this machine's ext4 (no journal) every deleted inode makes the next few minutes of
 * inode allocations slower, and the seeding must not tax the run it prepares.
 */
function seed(dir: string): void {
  const store = new TaskStore(statePaths(dir));
  store.ensureDir();
  const now = new Date().toISOString();
  for (let id = 1; id <= TASKS; id++) store.write(newTask(id, { subject: `bench task ${id}`, description: '', blockedBy: [] }, now));
}

/**
 * Microseconds per mkdir+rmdir in a scratch folder next to the boards: how costly inode
 * allocation is right now. It swings tenfold with the file churn of the last minutes, and every
 * claim allocates two inodes (its lock folder and its temp file), so it is printed with each run.
 */
function probeInodeCost(root: string): number {
  const probe = fs.mkdtempSync(path.join(root, 'probe-'));
  const started = performance.now();
  for (let i = 0; i < 50; i++) {
    fs.mkdirSync(path.join(probe, 'd'));
    fs.rmdirSync(path.join(probe, 'd'));
  }
  const micros = ((performance.now() - started) * 1000) / 50;
  fs.rmdirSync(probe);
  return micros;
}

async function run(root: string, mode: 'locked' | 'unlocked', racers: number): Promise<RunResult> {
  // Boards are removed only after the last run, so no run pays for the deletions of the one before.
  const dir = fs.mkdtempSync(path.join(root, 'board-'));
  seed(dir);
  const inodeMicros = probeInodeCost(root);
  const children = Array.from({ length: racers }, (_, i) => startBenchChild<RacerReport>(RACER, [dir, `racer-${i}`, mode]));
  // Start the clock only once every racer has loaded, so process start-up is not timed.
  await Promise.all(children.map((child) => child.ready));
  const started = performance.now();
  for (const child of children) child.go();
  const results = await Promise.all(children.map((child) => child.report));
  const all = results.flatMap((result) => result.claims);
  const wallMs = performance.now() - started;
  return {
    mode,
    racers,
    claims: all.length,
    distinct: new Set(all.map(([id]) => id)).size,
    tornReads: results.reduce((sum, result) => sum + result.tornReads, 0),
    wallMs,
    latencies: all.map(([, ms]) => ms),
    cpuMs: results.reduce((sum, result) => sum + result.cpuMs, 0),
    inodeMicros,
  };
}

export async function benchBoard(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-board-'));
  const rows: string[][] = [];
  try {
    for (const mode of MODES) {
      for (const racers of RACER_COUNTS) {
        for (let repeat = 0; repeat < REPEAT; repeat++) rows.push(format(await run(root, mode, racers)));
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  process.stdout.write(`board: ${TASKS} ready tasks per run, racers are separate processes, ${os.cpus().length} cores, node ${process.version}\n`);
  process.stdout.write(
    `${table(['claim', 'racers', 'claims', 'tasks', 'double', 'torn reads', 'claims/s', 'p50 ms', 'p99 ms', 'cpu ms/claim', 'mkdir+rmdir us'], rows)}\n`,
  );
}

function format(result: RunResult): string[] {
  return [
    result.mode === 'locked' ? 'teamd (locked)' : 'unlocked RMW',
    String(result.racers),
    String(result.claims),
    String(result.distinct),
    String(result.claims - result.distinct),
    String(result.tornReads),
    ((result.claims / result.wallMs) * 1000).toFixed(0),
    formatMs(percentile(result.latencies, 50)),
    formatMs(percentile(result.latencies, 99)),
    formatMs(result.cpuMs / result.claims),
    result.inodeMicros.toFixed(0),
  ];
}

function listFromEnv(name: string, fallback: string[]): string[] {
  const raw = process.env[name];
  return raw
    ? raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
    : fallback;
}
