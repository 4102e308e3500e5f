import { permitAll } from './team-settings.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Board } from '../src/store/files/board.js';
import type { Task } from '../src/contracts/task.js';
import { requestDaemon } from '../src/daemon/control-client.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths, type StatePaths } from '../src/paths.js';
import { readConfig } from '../src/roster/roster.js';
import { formatMs, percentile, table } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const NOOP = '```sh\ntrue\n```';

interface Team {
  readonly paths: StatePaths;
  readonly board: Board;
  close(): void;
}

async function startTeam(size: number): Promise<Team> {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-team-')), '.team');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'config.json'), JSON.stringify({ members: [], settings: { idleTimeoutMs: 0 } }));
  const paths = statePaths(root);
  permitAll(root);
  execFileSync(process.execPath, [TEAMD, 'start', '--dir', root]);
  for (let i = 0; i < size; i++) await requestDaemon(paths, { op: 'spawn', name: `mate-${i}`, role: 'bench' });
  await until(() => readConfig(paths.config).members.every((m) => m.status === 'idle'));
  const logger = createLogger();
  return {
    paths,
    board: new Board({ paths, locker: new FileLocker({ logger }), logger }),
    close: () => {
      execFileSync(process.execPath, [TEAMD, 'stop', '--dir', root]);
      fs.rmSync(path.dirname(root), { recursive: true, force: true });
    },
  };
}

async function until(probe: () => boolean, deadlineMs = 120_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('bench timed out');
    await delay(5);
  }
}

const ms = (iso: string | null): number => (iso ? Date.parse(iso) : Number.NaN);

/** task add -> claimed by an idle teammate (createdAt -> claimedAt), tasks added at random gaps. */
async function wakeLatency(samples: number): Promise<number[]> {
  const team = await startTeam(1);
  try {
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      await delay(100 + Math.random() * 300);
      const task = await team.board.add({ subject: `wake ${i}`, description: NOOP });
      await until(() => team.board.get(task.id).status === 'completed');
      const done = team.board.get(task.id);
      latencies.push(ms(done.claimedAt) - ms(done.createdAt));
    }
    return latencies;
  } finally {
    team.close();
  }
}

/** The seeds' idle loop: sleep a fixed interval, then look at the board. */
async function pollLatency(intervalMs: number, samples: number): Promise<number[]> {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-poll-')), '.team');
  const logger = createLogger();
  const board = new Board({ paths: statePaths(dir), locker: new FileLocker({ logger }), logger });
  const latencies: number[] = [];
  let running = true;
  const poller = (async () => {
    while (running) {
      await delay(intervalMs);
      const task = await board.claimNext('poller');
      if (task) latencies.push(Date.now() - ms(task.createdAt));
    }
  })();
  for (let i = 0; i < samples; i++) {
    await delay(200 + Math.random() * intervalMs);
    const before = latencies.length;
    await board.add({ subject: `poll ${i}` });
    await until(() => latencies.length > before);
  }
  running = false;
  await poller;
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  return latencies;
}

/** Tasks per minute, and claim -> completed per task minus the command's own time (a no-op). */
async function throughput(size: number, tasks: number): Promise<{ perMinute: number; overhead: number[] }> {
  const team = await startTeam(size);
  try {
    const added: Task[] = [];
    for (let i = 0; i < tasks; i++) added.push(await team.board.add({ subject: `t${i}`, description: NOOP }));
    await until(() => team.board.list({ status: 'completed' }).tasks.length === tasks);
    const done = team.board.list().tasks;
    const first = Math.min(...done.map((t) => ms(t.createdAt)));
    const last = Math.max(...done.map((t) => ms(t.completedAt)));
    return { perMinute: (tasks / (last - first)) * 60_000, overhead: done.map((t) => ms(t.completedAt) - ms(t.claimedAt)) };
  } finally {
    team.close();
  }
}

export async function benchTeam(): Promise<void> {
  const rows: string[][] = [];
  const watch = await wakeLatency(30);
  rows.push(['teamd (chokidar doorbell)', String(watch.length), formatMs(percentile(watch, 50)), formatMs(percentile(watch, 99))]);
  for (const interval of [1000, 5000]) {
    const polled = await pollLatency(interval, interval === 1000 ? 12 : 6);
    rows.push([`fixed poll ${interval / 1000} s (seeds)`, String(polled.length), formatMs(percentile(polled, 50)), formatMs(percentile(polled, 99))]);
  }
  process.stdout.write(`team: offline model, ${os.cpus().length} cores, node ${process.version}\n`);
  process.stdout.write(
    `wake: task added -> claimed by an idle teammate (createdAt -> claimedAt)\n${table(['idle teammate', 'tasks', 'p50 ms', 'p99 ms'], rows)}\n\n`,
  );
  const throughputRows: string[][] = [];
  for (const size of [1, 2, 4]) {
    const result = await throughput(size, 40);
    throughputRows.push([
      String(size),
      '40',
      result.perMinute.toFixed(0),
      formatMs(percentile(result.overhead, 50)),
      formatMs(percentile(result.overhead, 99)),
    ]);
  }
  process.stdout.write(
    `tasks of one no-op command each; overhead = claim -> completed (3 model round trips, 1 shell command, board writes)\n${table(['teammates', 'tasks', 'tasks/min', 'overhead p50 ms', 'p99 ms'], throughputRows)}\n`,
  );
}
