import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { statePaths } from '../src/paths.js';
import { startBenchChild } from './child.js';
import { formatMs, percentile, table } from './stats.js';

const WRITER = path.join(import.meta.dirname, 'mailbox-writer.js');
const CONSUMER = path.join(import.meta.dirname, 'mailbox-consumer.js');

function tempTeam(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-mailbox-'));
  const paths = statePaths(root);
  fs.writeFileSync(paths.config, JSON.stringify({ members: [{ name: 'sink', role: 'bench', status: 'idle' }] }));
  return root;
}

async function throughput(writers: number, perWriter: number): Promise<string[]> {
  const root = tempTeam();
  try {
    const children = Array.from({ length: writers }, (_, i) =>
      startBenchChild<{ sent: number; ms: number }>(WRITER, [root, `w${i}`, 'sink', 'flood', String(perWriter)]),
    );
    await Promise.all(children.map((child) => child.ready));
    const started = performance.now();
    for (const child of children) child.go();
    const reports = await Promise.all(children.map((child) => child.report));
    const wall = performance.now() - started;
    const sent = reports.reduce((sum, report) => sum + report.sent, 0);
    return [`${writers} writer${writers > 1 ? 's' : ''}`, String(sent), ((sent / wall) * 1000).toFixed(0)];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

interface LatencyCase {
  readonly label: string;
  readonly consumer: string;
  readonly count: number;
  /** [minGapMs, maxGapMs, burst] for the paced writer. */
  readonly pacing: readonly [number, number, number];
}

async function latency(spec: LatencyCase): Promise<string[]> {
  const root = tempTeam();
  try {
    const consumer = startBenchChild<{ latencies: number[] }>(CONSUMER, [root, 'sink', String(spec.count), spec.consumer]);
    const writer = startBenchChild<{ sent: number }>(WRITER, [root, 'w', 'sink', 'paced', String(spec.count), ...spec.pacing.map(String)]);
    await Promise.all([consumer.ready, writer.ready]);
    consumer.go();
    writer.go();
    await writer.report;
    const { latencies } = await consumer.report;
    return [spec.label, String(latencies.length), formatMs(percentile(latencies, 50)), formatMs(percentile(latencies, 99)), formatMs(Math.max(...latencies))];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function benchMailbox(): Promise<void> {
  const rows = [await throughput(1, 4000), await throughput(8, 1000)];
  process.stdout.write(
    `mailbox: appends into one inbox (fdatasync each), writers are separate processes, ${os.cpus().length} cores, node ${process.version}\n`,
  );
  process.stdout.write(`${table(['writers', 'messages', 'msgs/s'], rows)}\n\n`);

  const cases: LatencyCase[] = [
    { label: 'chokidar doorbell, single messages', consumer: 'watch', count: 60, pacing: [20, 200, 1] },
    { label: 'chokidar doorbell, bursts of 200', consumer: 'watch', count: 2000, pacing: [100, 300, 200] },
    { label: 'fixed poll 1 s (seeds)', consumer: 'poll:1000', count: 20, pacing: [200, 1200, 1] },
    { label: 'fixed poll 5 s (seeds)', consumer: 'poll:5000', count: 12, pacing: [500, 2500, 1] },
  ];
  const latencyRows: string[][] = [];
  for (const spec of cases) latencyRows.push(await latency(spec));
  process.stdout.write('wake latency: message appended -> consumer has read it (every message must arrive; none stranded)\n');
  process.stdout.write(`${table(['consumer', 'received', 'p50 ms', 'p99 ms', 'max ms'], latencyRows)}\n`);
}
