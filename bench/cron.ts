import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ScheduleStore } from '../src/cron/schedule-store.js';
import { readLiveDaemon } from '../src/proc/pid-file.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { readInboxFrom } from '../src/store/files/inbox-file.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths, type StatePaths } from '../src/paths.js';
import { cpuSeconds } from './proc.js';
import { formatMs, percentile, table } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const ONE_SHOTS = Number(process.env.BENCH_CRON_JOBS ?? 100);
const IDLE_SECONDS = Number(process.env.BENCH_CRON_IDLE_SECONDS ?? 60);
const logger = createLogger({ level: 'error' });

function freshState(): StatePaths {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-cron-')), '.team');
  fs.mkdirSync(path.join(root, 'tasks'), { recursive: true, mode: 0o700 });
  return statePaths(root);
}

function teamd(paths: StatePaths, args: string[]): void {
  execFileSync(process.execPath, [TEAMD, ...args, '--dir', paths.root], { stdio: 'ignore' });
}

/** The daemon's CPU seconds over `seconds` of wall time, doing nothing but holding its schedule. */
async function idleCpu(paths: StatePaths, seconds: number): Promise<number> {
  const pid = readLiveDaemon(paths)!.pid;
  const before = cpuSeconds(pid);
  await delay(seconds * 1000);
  return cpuSeconds(pid) - before;
}

/**
 * Timer accuracy: 100 one-shot jobs due over the next 10 s, each at a random millisecond; how late
 * each message lands in the lead's inbox (its timestamp) after its scheduled time. Then the
 * daemon's idle CPU holding 100 daily cron jobs, beside the same daemon with an empty schedule.
 */
export async function benchCron(): Promise<void> {
  const paths = freshState();
  teamd(paths, ['start']);
  try {
    const store = new ScheduleStore(paths, new FileLocker({ logger }));
    const floorCpu = await idleCpu(paths, IDLE_SECONDS);
    const start = Date.now() + 2_000;
    const due = new Map<string, number>();
    for (let i = 0; i < ONE_SHOTS; i++) {
      const at = start + Math.floor(Math.random() * 10_000);
      const message = `one-shot ${i}`;
      due.set(message, at);
      await store.add({
        at: new Date(at).toISOString(),
        to: 'lead',
        message,
        task: false,
        catchUp: false,
        createdBy: 'lead',
        createdAt: new Date().toISOString(),
      });
    }
    const deadline = Date.now() + 60_000;
    let late: number[] = [];
    for (;;) {
      const messages = readInboxFrom(paths.inboxFile('lead'), 0).messages.map((m) => m.message);
      late = messages.filter((m) => m.type === 'scheduled' && due.has(m.content)).map((m) => Date.parse(m.timestamp) - due.get(m.content)!);
      if (late.length >= ONE_SHOTS) break;
      if (Date.now() > deadline) throw new Error(`only ${late.length} of ${ONE_SHOTS} one-shot jobs arrived`);
      await delay(200);
    }
    for (let i = 0; i < 100; i++) {
      // Daily, at times that do not come during the measurement.
      const hour = (new Date().getHours() + 2 + (i % 20)) % 24;
      await store.add({
        cron: `${i % 60} ${hour} * * *`,
        to: 'lead',
        message: `daily ${i}`,
        task: false,
        catchUp: false,
        createdBy: 'lead',
        createdAt: new Date().toISOString(),
      });
    }
    // Idle: after the looks the additions caused.
    await delay(5_000);
    const cronCpu = await idleCpu(paths, IDLE_SECONDS);
    process.stdout.write(
      `cron: ${os.cpus().length} cores, node ${process.version}\n${table(
        ['figure', 'measured', 'floor (same run)'],
        [
          [
            `scheduled time -> message in the inbox, ${ONE_SHOTS} one-shot jobs`,
            `p50 ${formatMs(percentile(late, 50))} ms, p99 ${formatMs(percentile(late, 99))} ms`,
            '-',
          ],
          [`daemon CPU, ${IDLE_SECONDS} s idle with 100 cron jobs`, `${cronCpu.toFixed(3)} s`, `empty schedule ${floorCpu.toFixed(3)} s`],
        ],
      )}\n`,
    );
  } finally {
    teamd(paths, ['stop']);
    fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
  }
}
