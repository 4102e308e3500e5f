import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import readline from 'node:readline';
import { createLogger } from '../src/log/logger.js';
import { statePaths } from '../src/paths.js';
import { openStore } from '../src/store/open/open-store.js';
import { type TeamStore } from '../src/contracts/team-store.js';
import { startLocalServer } from '../src/store/postgres/local-server.js';
import { migrateStore } from '../src/store/postgres/store-admin.js';
import { parseStore } from '../src/store/store-setting.js';
import { startBenchChild, epochMs } from './child.js';
import { formatMs, percentile, table } from './stats.js';
import { benchHosts } from './hosts.js';

const TASKS = Number(process.env.BENCH_TASKS ?? 500);
const RACERS = [1, 4, 8];
const WAKES = Number(process.env.BENCH_WAKES ?? 200);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1000);
const CHILD = path.join(import.meta.dirname, 'store-child.js');

interface ClaimReport {
  readonly claims: [number, number][];
  readonly cpuMs: number;
}

/** A fresh team on a store: a new state folder, and (postgres) a team name of its own. */
async function freshTeam(store: string, root: string): Promise<{ dir: string; team: string; opened: TeamStore }> {
  const dir = path.join(fs.mkdtempSync(path.join(root, 'team-')), '.team');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(statePaths(dir).config, JSON.stringify({ members: [{ name: 'sink', role: 'bench', status: 'idle' }] }));
  const team = `bench-${randomUUID().slice(0, 8)}`;
  const opened = await openStore(parseStore(store, { team, host: 'bench' }), { paths: statePaths(dir), logger: createLogger(), poolSize: 4 });
  if (opened.setting.kind === 'postgres') await opened.members.publish('bench', [{ name: 'sink', role: 'bench', status: 'idle' }]);
  return { dir, team, opened };
}

async function claims(store: string, root: string, racers: number): Promise<{ perSecond: number; p50: number; p99: number; doubles: number; cpuMs: number }> {
  const { dir, team, opened } = await freshTeam(store, root);
  for (let i = 0; i < TASKS; i++) await opened.board.add({ subject: `bench task ${i + 1}` });
  await opened.close();
  const children = Array.from({ length: racers }, (_, i) => startBenchChild<ClaimReport>(CHILD, [store, dir, team, 'claim', `racer-${i}`]));
  await Promise.all(children.map((child) => child.ready));
  const started = performance.now();
  for (const child of children) child.go();
  const reports = await Promise.all(children.map((child) => child.report));
  const wallMs = performance.now() - started;
  const all = reports.flatMap((report) => report.claims);
  const distinct = new Set(all.map(([id]) => id)).size;
  if (distinct !== TASKS) throw new Error(`${racers} racers on ${store === 'files' ? 'files' : 'postgres'} claimed ${distinct} of ${TASKS} tasks`);
  const latencies = all.map(([, ms]) => ms);
  return {
    perSecond: (distinct / wallMs) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    doubles: all.length - distinct,
    cpuMs: reports.reduce((sum, report) => sum + report.cpuMs, 0),
  };
}

/** Message -> reader woken and read, one message at a time (the next is sent once the last arrived). */
async function wakes(store: string, root: string): Promise<number[]> {
  const { dir, team, opened } = await freshTeam(store, root);
  const child = spawn(process.execPath, [CHILD, store, dir, team, 'read'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const pending: ((line: string) => void)[] = [];
  lines.on('line', (line) => pending.shift()?.(line));
  const next = (): Promise<string> => new Promise((resolve) => pending.push(resolve));
  if ((await next()) !== 'ready') throw new Error('the reader did not start');
  child.stdin.end('go\n');
  const latencies: number[] = [];
  for (let i = 0; i < WAKES; i++) {
    const arrived = next();
    await opened.mail.send({ from: 'lead', to: 'sink', content: String(epochMs()) });
    latencies.push(Number((await arrived).split(' ')[1]));
  }
  await opened.mail.send({ from: 'lead', to: 'sink', content: 'end' });
  await new Promise((resolve) => child.once('close', resolve));
  await opened.close();
  return latencies;
}

async function sends(store: string, root: string): Promise<number> {
  const { opened } = await freshTeam(store, root);
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i++) await opened.mail.send({ from: 'lead', to: 'sink', content: `message ${i}` });
  const perSecond = (MESSAGES / (performance.now() - started)) * 1000;
  await opened.close();
  return perSecond;
}

export async function benchStore(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-store-'));
  const server = await startLocalServer({ durable: true });
  try {
    await migrateStore(server.url, createLogger());
    const stores: [string, string][] = [
      ['files', 'files'],
      ['postgres', server.url],
    ];
    const rows: string[][] = [];
    for (const racers of RACERS) {
      for (const [name, store] of stores) {
        const result = await claims(store, root, racers);
        rows.push([
          `claims, ${racers} racer${racers === 1 ? '' : 's'}, ${TASKS} tasks`,
          name,
          `${result.perSecond.toFixed(0)}/s (p50 ${formatMs(result.p50)} ms, p99 ${formatMs(result.p99)} ms; ${result.doubles} doubles; CPU ${formatMs(result.cpuMs)} ms)`,
        ]);
      }
    }
    for (const [name, store] of stores) {
      const latencies = await wakes(store, root);
      rows.push([
        `wake, message -> read, ${WAKES} one at a time`,
        name,
        `p50 ${formatMs(percentile(latencies, 50))} ms, p99 ${formatMs(percentile(latencies, 99))} ms`,
      ]);
    }
    for (const [name, store] of stores) {
      rows.push([`messages sent, one sender, ${MESSAGES} in a row (durable)`, name, `${(await sends(store, root)).toFixed(0)}/s`]);
    }
    const hosts = process.env.BENCH_HOSTS === '0' ? null : await benchHosts(server.url);
    if (hosts) rows.push(...hosts.rows);
    process.stdout.write(
      `store: ${os.cpus().length} cores, node ${process.version}, PostgreSQL 15 on this machine (fsync on, synchronous_commit on; the file store fdatasyncs each append)\n${table(['figure', 'store', 'measured'], rows)}\n${(hosts?.notes ?? []).join('\n')}\n`,
    );
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
