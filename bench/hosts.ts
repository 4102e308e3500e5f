import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { requestDaemon } from '../src/daemon/control-client.js';
import { isAlive, readLiveDaemon } from '../src/proc/pid-file.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths, type StatePaths } from '../src/paths.js';
import { readConfig } from '../src/roster/roster.js';
import { openStore } from '../src/store/open/open-store.js';
import { parseStore } from '../src/store/store-setting.js';
import type { TaskBoard } from '../src/contracts/task-board.js';
import type { TeamStore } from '../src/contracts/team-store.js';
import { permitAll } from './team-settings.js';
import { until } from './scale.js';
import { formatMs, percentile } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const HOSTS = Number(process.env.BENCH_HOSTS ?? 4);
const PER_HOST = Number(process.env.BENCH_HOST_TEAMMATES ?? 25);
const WAKES = Number(process.env.BENCH_HOST_WAKES ?? 100);
const BURST = Number(process.env.BENCH_HOST_TASKS ?? 500);
const logger = createLogger({ level: 'error' });

interface Host {
  readonly paths: StatePaths;
  readonly names: string[];
}

export interface HostsFigures {
  readonly rows: string[][];
  readonly notes: string[];
}

function teamd(args: string[]): void {
  execFileSync(process.execPath, [TEAMD, ...args], { encoding: 'utf8' });
}

function makeHost(root: string, name: string, settings: Record<string, unknown>): StatePaths {
  const dir = path.join(fs.mkdtempSync(path.join(root, `${name}-`)), '.team');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(statePaths(dir).config, JSON.stringify({ members: [], settings: { idleTimeoutMs: 0, ...settings } }));
  permitAll(dir);
  teamd(['start', '--dir', dir]);
  return statePaths(dir);
}

async function grow(paths: StatePaths, prefix: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const name of names) await requestDaemon(paths, { op: 'spawn', name, role: 'bench' });
  return names;
}

const allIdle = (hosts: readonly Host[]) => (): boolean =>
  hosts.every((host) => {
    const members = readConfig(host.paths.config).members;
    return members.length >= host.names.length && members.every((m) => m.status === 'idle');
  });

function stopHost(paths: StatePaths): void {
  const daemon = readLiveDaemon(paths);
  if (daemon && isAlive(daemon.pid)) teamd(['stop', '--dir', paths.root]);
  for (const m of readConfig(paths.config).members) if (m.pid && isAlive(m.pid)) process.kill(m.pid, 'SIGKILL');
}

const at = (iso: string | null): number => (iso ? Date.parse(iso) : Number.NaN);

/** One ready task at a time, from outside every host: ms from its creation to its claim. */
async function wakeOnce(board: TaskBoard, hosts: readonly Host[], label: string): Promise<number> {
  const task = await board.add({ subject: `wake ${label}` });
  let done = await board.get(task.id);
  while (done.status !== 'completed') {
    await delay(5);
    done = await board.get(task.id);
  }
  await until(allIdle(hosts), 'the team idle again');
  return at(done.claimedAt) - at(done.createdAt);
}

interface Sessions {
  readonly total: number;
  readonly listening: number;
  readonly daemons: number;
}

async function sessions(client: pg.Client, team: string): Promise<Sessions> {
  const rows = (
    await client.query<{ name: string; query: string }>(
      "SELECT application_name AS name, query FROM pg_stat_activity WHERE application_name LIKE '% (' || $1 || '@host-%'",
      [team],
    )
  ).rows;
  return {
    total: rows.length,
    listening: rows.filter((row) => row.query.startsWith('LISTEN')).length,
    daemons: rows.filter((row) => row.name.startsWith('teamd daemon ')).length,
  };
}

/**
 * A team of HOSTS daemons x PER_HOST teammates on one PostgreSQL database, beside one host of
 * PER_HOST teammates on files, both up at once: task wake-ups measured in turn (files, then
 * PostgreSQL, and so on), a burst of BURST tasks made ready at once on PostgreSQL (claims/s),
 * and the database's connections, idle and at the burst's peak.
 */
export async function benchHosts(url: string): Promise<HostsFigures> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-hosts-'));
  const team = `hosts-${randomUUID().slice(0, 8)}`;
  const started: StatePaths[] = [];
  const stores: TeamStore[] = [];
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const shared = await openStore(parseStore(url, { team, host: 'bench' }), { paths: statePaths(path.join(root, 'bench', '.team')), logger, poolSize: 2 });
    stores.push(shared);
    // The burst's tasks wait on a gate held outside the team, added before anyone can claim it.
    const gate = await shared.board.add({ subject: 'gate' });
    await shared.board.claim(gate.id, 'gatekeeper');
    for (let i = 0; i < BURST; i++) await shared.board.add({ subject: `burst ${i}`, blockedBy: [gate.id] });

    const hosts: Host[] = [];
    for (let h = 0; h < HOSTS; h++) {
      const paths = makeHost(root, `host-${h}`, { store: url, team, host: `host-${h}` });
      started.push(paths);
      hosts.push({ paths, names: await grow(paths, `h${h}`, PER_HOST) });
    }
    const filesPaths = makeHost(root, 'files', {});
    started.push(filesPaths);
    const files: Host = { paths: filesPaths, names: await grow(filesPaths, 'f', PER_HOST) };
    const filesStore = await openStore({ kind: 'files' }, { paths: filesPaths, logger });
    stores.push(filesStore);
    await until(allIdle([...hosts, files]), 'every teammate idle', 600_000, 50);
    await delay(2_000);
    const idle = await sessions(client, team);

    const onFiles: number[] = [];
    const onPg: number[] = [];
    for (let i = 0; i < WAKES; i++) {
      await delay(50 + Math.random() * 100);
      onFiles.push(await wakeOnce(filesStore.board, [files], `files ${i}`));
      await delay(50 + Math.random() * 100);
      onPg.push(await wakeOnce(shared.board, hosts, `pg ${i}`));
    }

    // The burst: every task ready at once, every teammate of every host racing.
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = await sessions(client, team);
        if (now.total > peak.total) peak = now;
        await delay(20);
      }
    })();
    const openedAt = Date.now();
    await shared.board.complete(gate.id, { owner: 'gatekeeper', claim: 1 });
    let completed: Awaited<ReturnType<TaskBoard['list']>>['tasks'] = [];
    for (let rounds = 0; rounds < 60_000 / 50; rounds++) {
      completed = (await shared.board.list({ status: 'completed' })).tasks.filter((task) => task.subject.startsWith('burst '));
      if (completed.length >= BURST) break;
      await delay(50);
    }
    sampling = false;
    await sampler;
    if (completed.length < BURST) throw new Error(`only ${completed.length} of ${BURST} burst tasks completed in 60 s`);
    const claimedAt = completed.map((task) => at(task.claimedAt)).sort((a, b) => a - b);
    const lastClaim = claimedAt.at(-1)!;
    // The first wave: one claim per teammate, every teammate racing for the same rows at once.
    const wave = Math.min(HOSTS * PER_HOST, BURST);
    const waveMs = claimedAt[wave - 1]! - openedAt;
    const claimsPerSecond = (BURST / (lastClaim - openedAt)) * 1000;
    const doubles = completed.filter((task) => task.claim !== 1).length;
    const byHost = new Map<string, number>();
    for (const task of completed) byHost.set(task.owner!.split('-')[0]!, (byHost.get(task.owner!.split('-')[0]!) ?? 0) + 1);

    const fmt = (samples: readonly number[]): string => `p50 ${formatMs(percentile(samples, 50))} ms, p99 ${formatMs(percentile(samples, 99))} ms`;
    const p50Ratio = percentile(onPg, 50) / percentile(onFiles, 50);
    return {
      rows: [
        [`wake, task -> claimed, ${WAKES} one at a time, ${PER_HOST} idle teammates on one host`, 'files', fmt(onFiles)],
        [
          `wake, task -> claimed, ${WAKES} one at a time, ${HOSTS} hosts x ${PER_HOST} idle teammates`,
          'postgres',
          `${fmt(onPg)} (p50 ${p50Ratio.toFixed(2)}x files; goal <= 2x)`,
        ],
        [
          `claims, ${BURST} tasks ready at once, ${HOSTS} hosts x ${PER_HOST} teammates`,
          'postgres',
          `first ${wave} claims (one per teammate, all racing) in ${waveMs} ms (${((wave / waveMs) * 1000).toFixed(0)}/s); all ${BURST} claimed and done at ${claimsPerSecond.toFixed(0)}/s; ${doubles} claimed twice; by host ${[...byHost].map(([host, n]) => `${host} ${n}`).join(', ')}`,
        ],
        [
          `connections, ${HOSTS} hosts x ${PER_HOST} teammates`,
          'postgres',
          `idle ${idle.total} (daemons ${idle.daemons}, listening ${idle.listening}); peak in the burst ${peak.total} (listening ${peak.listening})`,
        ],
      ],
      notes: [
        "Connections: each host holds one listening connection (its daemon's, which relays its teammates' messages over IPC) and its daemon's pool and heartbeat; each teammate at most one (a pool of one), so they grow with hosts plus one per teammate, not three per teammate.",
      ],
    };
  } finally {
    for (const paths of started) stopHost(paths);
    for (const store of stores) await store.close().catch(() => undefined);
    await client.end().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
}
