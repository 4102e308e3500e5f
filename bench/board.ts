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
const RACER = path.join(import.meta.dirname, 'board-racer.js');

interface RunResult {
  readonly mode: 'locked' | 'unlocked';
  readonly racers: number;
  readonly claims: number;
  readonly distinct: number;
  readonly tornReads: number;
  readonly wallMs: number;
  readonly latencies: number[];
}

interface RacerReport {
  readonly claims: [number, number][];
  readonly tornReads: number;
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
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBoard(): Promise<void> {
  const rows: string[][] = [];
  for (const mode of ['locked', 'unlocked'] as const) {
    for (const racers of [1, 4, 8]) {
      const result = await run(mode, racers);
      rows.push([
        mode === 'locked' ? 'teamd (locked)' : 'unlocked RMW',
        String(racers),
        String(result.claims),
        String(result.distinct),
        String(result.claims - result.distinct),
        String(result.tornReads),
        ((result.claims / result.wallMs) * 1000).toFixed(0),
        formatMs(percentile(result.latencies, 50)),
        formatMs(percentile(result.latencies, 99)),
      ]);
    }
  }
  process.stdout.write(`board: ${TASKS} ready tasks per run, racers are separate processes, ${os.cpus().length} cores, node ${process.version}\n`);
  process.stdout.write(`${table(['claim', 'racers', 'claims', 'tasks', 'double', 'torn reads', 'claims/s', 'p50 ms', 'p99 ms'], rows)}\n`);
}
