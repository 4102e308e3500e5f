import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Board } from '../src/board/board.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { createLogger } from '../src/logger.js';
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
}

interface RacerReport {
  readonly claims: [number, number][];
  readonly tornReads: number;
  readonly cpuMs: number;
}

async function seed(dir: string): Promise<void> {
  const logger = createLogger();
  const board = new Board({ paths: statePaths(dir), locker: new FileLocker({ logger }), logger });
  for (let i = 0; i < TASKS; i++) await board.add({ subject: `bench task ${i + 1}` });
}

async function run(mode: 'locked' | 'unlocked', racers: number): Promise<RunResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-board-'));
  try {
    await seed(dir);
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
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBoard(): Promise<void> {
  const rows: string[][] = [];
  for (const mode of MODES) {
    for (const racers of RACER_COUNTS) {
      for (let repeat = 0; repeat < REPEAT; repeat++) rows.push(format(await run(mode, racers)));
    }
  }
  process.stdout.write(`board: ${TASKS} ready tasks per run, racers are separate processes, ${os.cpus().length} cores, node ${process.version}\n`);
  process.stdout.write(`${table(['claim', 'racers', 'claims', 'tasks', 'double', 'torn reads', 'claims/s', 'p50 ms', 'p99 ms', 'cpu ms/claim'], rows)}\n`);
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
  ];
}

function listFromEnv(name: string, fallback: string[]): string[] {
  const raw = process.env[name];
  return raw ? raw.split(',').map((item) => item.trim()).filter((item) => item.length > 0) : fallback;
}
