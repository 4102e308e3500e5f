import { permitAll } from './team-settings.js';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Board } from '../src/store/files/board.js';
import type { Task } from '../src/contracts/task.js';
import { requestDaemon } from '../src/daemon/control-client.js';
import { isAlive, readLiveDaemon } from '../src/proc/pid-file.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { Mailbox } from '../src/store/files/mailbox.js';
import { readRequestScan } from '../src/inbox/request-scan.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths, type StatePaths } from '../src/paths.js';
import { inotifyUseOf, readInotifyLimits } from '../src/proc/inotify.js';
import { readConfig } from '../src/roster/roster.js';
import { type Member } from '../src/contracts/roster.js';
import { TEAMMATE_V8_FLAGS } from '../src/platform/boot/teammate-v8.js';
import { cpuSeconds, pssMiB, rssMiB } from './proc.js';
import { formatMs, percentile, table } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const TEAM = Number(process.env.BENCH_SCALE_TEAM ?? 50);
const BIG_TEAM = Number(process.env.BENCH_SCALE_BIG_TEAM ?? 100);
// p99 of fewer than 100 samples is their maximum: one stall of this VM would be the figure.
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 100);
const IDLE_SECONDS = Number(process.env.BENCH_SCALE_IDLE_SECONDS ?? 60);
const LONG_RUN_TASKS = Number(process.env.BENCH_SCALE_TASKS ?? 400);
const NOOP = '```sh\ntrue\n```';
/** How long the team is left idle before its settled memory is read. */
const SETTLE_MS = 10_000;
const logger = createLogger({ level: 'error' });

interface Row {
  readonly figure: string;
  readonly measured: string;
  readonly floor: string;
  readonly goal: string;
}

function teamd(args: string[]): string {
  return execFileSync(process.execPath, [TEAMD, ...args], { encoding: 'utf8' });
}

/** Polls (every `everyMs`) until a condition holds. Benches may poll; tests never sleep to order events. */
export async function until(probe: () => boolean, what: string, deadlineMs = 180_000, everyMs = 5): Promise<number> {
  const deadline = performance.now() + deadlineMs;
  while (!probe()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(everyMs);
  }
  return performance.now();
}

const at = (iso: string | null): number => (iso ? Date.parse(iso) : Number.NaN);

/** A task file as `git checkout` or `cp` would bring it: written straight into the folder. */
function taskJson(id: number, status: Task['status'], fields: Partial<Task> = {}): string {
  const now = new Date().toISOString();
  const finished = status === 'completed' || status === 'failed' || status === 'cancelled';
  const task: Task = {
    id,
    subject: `task ${id}`,
    description: NOOP,
    status,
    owner: null,
    blockedBy: [],
    claim: 0,
    rev: 0,
    createdAt: now,
    updatedAt: now,
    claimedAt: null,
    completedAt: finished ? now : null,
    result: finished ? 'done' : null,
    ...fields,
  };
  return `${JSON.stringify(task, null, 2)}\n`;
}

/**
 * A board of `total` tasks: task 1 is in progress, held by someone not on the team, and `pending`
 * tasks wait on it (never ready); the rest are completed, in tasks/done/. Written directly (fast).
 */
export function seedBoard(paths: StatePaths, total: number, pending: number): void {
  fs.mkdirSync(paths.doneDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    paths.taskFile(1),
    taskJson(1, 'in_progress', { owner: 'gatekeeper', claim: 1, claimedAt: new Date().toISOString(), description: 'held outside the team' }),
  );
  for (let id = 2; id <= pending + 1; id++) fs.writeFileSync(paths.taskFile(id), taskJson(id, 'pending', { blockedBy: [1] }));
  for (let id = pending + 2; id <= total; id++) fs.writeFileSync(paths.doneTaskFile(id), taskJson(id, 'completed'));
  fs.writeFileSync(paths.taskCounter, `${JSON.stringify({ next: total + 1 })}\n`);
}

/** `count` task_completed reports to the lead, as a team that finished tasks `first`.. sent them: JSON lines. */
function oldReports(first: number, count: number): string {
  let lines = '';
  for (let n = first; n < first + count; n++) {
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const content = `task ${n} completed: ${'done, tests pass. '.repeat(10)}`;
    lines += `${JSON.stringify({ id, type: 'task_completed', from: 'alice', to: 'lead', content, timestamp: new Date().toISOString() })}\n`;
  }
  return lines;
}

/** `count` blocked task files from id `first`, in a staging folder, for `cp` to bring in at once. */
function stageBurst(first: number, count: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-burst-'));
  for (let id = first; id < first + count; id++) fs.writeFileSync(path.join(dir, `task_${id}.json`), taskJson(id, 'pending', { blockedBy: [1] }));
  return dir;
}

export function freshState(): StatePaths {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-scale-')), '.team');
  fs.mkdirSync(path.join(root, 'tasks'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(root, 'config.json'), JSON.stringify({ members: [], settings: { idleTimeoutMs: 0 } }));
  return statePaths(root);
}

function members(paths: StatePaths): Member[] {
  return readConfig(paths.config).members;
}

const allIdle = (paths: StatePaths, size: number) => (): boolean => {
  const team = members(paths);
  return team.length >= size && team.every((m) => m.status === 'idle');
};

/** Spawns teammates one at a time, each idle before the next (start-up is timed, so no start-up contends with another). */
export async function grow(paths: StatePaths, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await requestDaemon(paths, { op: 'spawn', name: `mate-${i}`, role: 'bench' });
    await until(allIdle(paths, i + 1), `mate-${i} idle`);
  }
}

function logLines<T>(file: string, marker: string): T[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => JSON.parse(line) as T);
}

export function readyTimes(paths: StatePaths): number[] {
  return logLines<{ readyMs: number }>(paths.logFile('daemon'), '"teammate ready"').map((line) => line.readyMs);
}

/** Wake-up CPU (wake -> claim) each teammate logged, in ms. */
function wakeCpu(paths: StatePaths): number[] {
  return members(paths).flatMap((m) =>
    logLines<{ wakeCpuUs?: number }>(paths.logFile(m.name), '"task claimed"').flatMap((line) => (line.wakeCpuUs === undefined ? [] : [line.wakeCpuUs / 1000])),
  );
}

/** Adds one ready task at a time to an idle team: ms from the task's creation to its claim. */
async function taskWakes(paths: StatePaths, board: Board, size: number, samples: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    await delay(50 + Math.random() * 100);
    const task = await board.add({ subject: `wake ${i}`, description: NOOP });
    await until(() => board.get(task.id).status === 'completed', `task ${task.id} done`);
    const done = board.get(task.id);
    latencies.push(at(done.claimedAt) - at(done.createdAt));
    await until(allIdle(paths, size), 'the team idle again');
  }
  return latencies;
}

/** Sends one message at a time to a teammate of an idle team: ms until its cursor shows it read. */
async function messageWakes(paths: StatePaths, size: number, samples: number): Promise<number[]> {
  const mailbox = new Mailbox({ paths, logger });
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    await delay(50 + Math.random() * 100);
    const to = `mate-${(i * 7) % size}`;
    const sentAt = performance.now();
    const message = mailbox.send({ from: 'lead', to, type: 'message', content: `ping ${i}` });
    const cursor = paths.cursorFile(to);
    const readAt = await until(
      () => {
        try {
          return (JSON.parse(fs.readFileSync(cursor, 'utf8')) as { lastId?: string }).lastId === message.id;
        } catch {
          return false;
        }
      },
      `${to} to read its message`,
      60_000,
      1,
    );
    latencies.push(readAt - sentAt);
    await until(allIdle(paths, size), 'the team idle again');
  }
  return latencies;
}

/** The floor under every wake-up here: a plain fs.watch in another process seeing a file appear. */
async function bareWatchFloor(samples: number): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-floor-'));
  const watcher = spawn(
    process.execPath,
    ['-e', `require('fs').watch(${JSON.stringify(dir)}, (e, name) => process.stdout.write(name + '\\n')); process.stdout.write('ready\\n')`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const seen = new Map<string, number>();
  let buffer = '';
  watcher.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    for (const line of lines) if (!seen.has(line)) seen.set(line, performance.now());
  });
  await until(() => seen.has('ready'), 'the watcher');
  const latencies: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      await delay(20);
      const name = `f${i}`;
      const written = performance.now();
      fs.writeFileSync(path.join(dir, name), 'x');
      latencies.push((await until(() => seen.has(name), 'the watch event', 10_000, 0.5)) - written);
    }
  } finally {
    watcher.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return latencies;
}

/** A bare Node child with an IPC channel and the teammates' V8 flags, set as a teammate sets them: the memory floor. */
async function bareChildRss(): Promise<number> {
  const flags = TEAMMATE_V8_FLAGS.map((flag) => `v8.setFlagsFromString(${JSON.stringify(flag)});`).join(' ');
  const script = `const v8 = require('node:v8'); ${flags} setInterval(() => {}, 1000); process.send('up')`;
  const child = spawn(process.execPath, ['-e', script], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise((resolve) => child.once('message', resolve));
  await delay(1000);
  const rss = rssMiB(child.pid!);
  child.kill();
  return rss;
}

/**
 * Wall time p50 of each command, run in turn (a, b, c, a, b, c, ...): a floor measured beside
 * what it is the floor of, in the same minutes, on this noisy box. One unmeasured run each first.
 */
export function wallMsInterleaved(commands: readonly (readonly string[])[], runs = 21): number[] {
  const times = commands.map((): number[] => []);
  for (const args of commands) execFileSync(process.execPath, [...args], { stdio: 'ignore' });
  for (let i = 0; i < runs; i++) {
    commands.forEach((args, k) => {
      const started = performance.now();
      execFileSync(process.execPath, [...args], { stdio: 'ignore' });
      times[k]!.push(performance.now() - started);
    });
  }
  return times.map((t) => percentile(t, 50));
}

function teamCpu(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + (isAlive(pid) ? cpuSeconds(pid) : 0), 0);
}

interface Started {
  readonly paths: StatePaths;
  readonly board: Board;
  readonly daemonPid: number;
  close(): void;
}

export function startDaemon(paths: StatePaths): Started {
  permitAll(paths.root);
  teamd(['start', '--dir', paths.root]);
  const daemonPid = readLiveDaemon(paths)!.pid;
  return {
    paths,
    daemonPid,
    board: new Board({ paths, locker: new FileLocker({ logger }), logger }),
    close: () => {
      if (isAlive(daemonPid)) teamd(['stop', '--dir', paths.root]);
      for (const m of members(paths)) if (m.pid && isAlive(m.pid)) process.kill(m.pid, 'SIGKILL');
      fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
    },
  };
}

const p = (samples: readonly number[], q: number): string => `${formatMs(percentile(samples, q))} ms`;
const mib = (value: number): string => `${value.toFixed(1)} MiB`;

export async function benchScale(): Promise<void> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const floorWatch = await bareWatchFloor(SAMPLES);
  const floorRss = await bareChildRss();
  let smallWakeCpu: number[] = [];

  // 1. Start-up on an empty board, and the CLI beside `node -e ''`.
  {
    const team = startDaemon(freshState());
    try {
      await grow(team.paths, 0, 10);
      rows.push({ figure: 'spawn -> ready p50, 0 tasks (10 teammates)', measured: p(readyTimes(team.paths), 50), floor: '-', goal: '<= 150 ms' });
      for (let i = 0; i < 100; i++) await team.board.add({ subject: `small ${i}`, description: NOOP });
      await until(() => team.board.list({ status: 'completed' }).tasks.length === 100, 'the 100 tasks done');
      await until(allIdle(team.paths, 10), 'idle');
      const [nodeBare, list, status] = wallMsInterleaved([
        ['-e', ''],
        [TEAMD, 'task', 'list', '--dir', team.paths.root],
        [TEAMD, 'status', '--json', '--dir', team.paths.root],
      ]) as [number, number, number];
      rows.push({
        figure: '`teamd task list` wall, 100 tasks',
        measured: `${formatMs(list)} ms (${(list / nodeBare).toFixed(2)}x)`,
        floor: `node -e '' ${formatMs(nodeBare)} ms`,
        goal: '<= 2x',
      });
      rows.push({
        figure: '`teamd status --json` wall, 100 tasks',
        measured: `${formatMs(status)} ms (${(status / nodeBare).toFixed(2)}x)`,
        floor: `node -e '' ${formatMs(nodeBare)} ms`,
        goal: '<= 2x',
      });
      // The lead's inbox of a long-lived team: 50,000 reports (~18 MB). status lists the plan
      // requests waiting; it reads the inbox only past the daemon's scan (inbox/request-scan.ts).
      const reports = fs.openSync(team.paths.inboxFile('lead'), 'a');
      for (let i = 0; i < 50; i++) fs.writeSync(reports, oldReports(i * 1_000, 1_000));
      fs.closeSync(reports);
      const leadBytes = fs.statSync(team.paths.inboxFile('lead')).size;
      await until(() => (readRequestScan(team.paths.requestScan)?.lead ?? 0) >= leadBytes, "the daemon's scan past the reports", 30_000, 20);
      const [bareAgain, statusLong] = wallMsInterleaved([
        ['-e', ''],
        [TEAMD, 'status', '--json', '--dir', team.paths.root],
      ]) as [number, number];
      rows.push({
        figure: `\`teamd status --json\` wall, 100 tasks, 50,000 reports in lead.jsonl (${mib(leadBytes / 1024 / 1024)})`,
        measured: `${formatMs(statusLong)} ms (${(statusLong / bareAgain).toFixed(2)}x)`,
        floor: `node -e '' ${formatMs(bareAgain)} ms`,
        goal: '<= 2x',
      });
      // CPU per wake-up at 100 tasks: the same measure as at 10,000 below.
      fs.writeFileSync(team.paths.taskFile(500), taskJson(500, 'in_progress', { owner: 'gatekeeper', claim: 1, claimedAt: new Date().toISOString() }));
      for (let id = 501; id <= 510; id++) fs.writeFileSync(team.paths.taskFile(id), taskJson(id, 'pending', { blockedBy: [500] }));
      fs.writeFileSync(team.paths.taskCounter, `${JSON.stringify({ next: 511 })}\n`);
      const before = wakeCpu(team.paths).length;
      await taskWakes(team.paths, team.board, 10, SAMPLES);
      const small = wakeCpu(team.paths).slice(before);
      notes.push(`wake CPU at 100 tasks (10 pending, blocked): p50 ${p(small, 50)} over ${small.length} wake-ups`);
      smallWakeCpu = small;
    } finally {
      team.close();
    }
  }

  // 2. 10,000 tasks (1,000 pending, blocked), 50 teammates, then 100.
  const paths = freshState();
  seedBoard(paths, 10_000, 1_000);
  const team = startDaemon(paths);
  try {
    // CPU per wake-up first, with the same 10 teammates as at 100 tasks, each warmed by one task
    // first (the daemon rings the longest idle), as those had done ten each: board size is then
    // the only difference. (With 50, contention for the 2 cores inflates every process's CPU.)
    await grow(paths, 0, 10);
    await taskWakes(paths, team.board, 10, 10);
    const warm = wakeCpu(paths).length;
    await taskWakes(paths, team.board, 10, SAMPLES);
    const big = wakeCpu(paths).slice(warm);
    await grow(paths, 10, TEAM);
    rows.push({ figure: `spawn -> ready p50, 10,000 tasks (${TEAM} teammates)`, measured: p(readyTimes(paths), 50), floor: '-', goal: '<= 150 ms' });
    const fresh = members(paths).slice(10);
    const idleRss = fresh.map((m) => rssMiB(m.pid!));
    const idlePss = fresh.map((m) => pssMiB(m.pid!));
    rows.push({
      figure: `RSS per idle teammate, never worked (p50 of ${idleRss.length}); PSS`,
      measured: `${mib(percentile(idleRss, 50))}; PSS ${mib(percentile(idlePss, 50))}`,
      floor: `bare node + IPC ${mib(floorRss)}`,
      goal: '<= 50 MiB',
    });
    // The newer 40 do one task each first too, so latency is measured on warm teammates.
    await taskWakes(paths, team.board, TEAM, TEAM - 10);
    const taskLatency = await taskWakes(paths, team.board, TEAM, SAMPLES);
    rows.push({
      figure: `wake p99, task -> claimed, ${TEAM} idle, 10,000 tasks (1,000 pending)`,
      measured: `${p(taskLatency, 99)} (p50 ${p(taskLatency, 50)}, max ${p(taskLatency, 100)})`,
      floor: `bare fs.watch p99 ${p(floorWatch, 99)}`,
      goal: '<= 50 ms',
    });
    const messageLatency = await messageWakes(paths, TEAM, SAMPLES);
    rows.push({
      figure: `wake p99, message -> read, ${TEAM} idle`,
      measured: `${p(messageLatency, 99)} (p50 ${p(messageLatency, 50)}, max ${p(messageLatency, 100)})`,
      floor: `bare fs.watch p99 ${p(floorWatch, 99)}`,
      goal: '<= 20 ms',
    });
    const small = smallWakeCpu;
    rows.push({
      figure: 'CPU per wake-up per teammate (wake -> claim), 10,000 vs 100 tasks, 10 teammates',
      measured: `${p(big, 50)} vs ${p(small, 50)} (ratio ${(percentile(big, 50) / percentile(small, 50)).toFixed(2)})`,
      floor: '-',
      goal: 'ratio <= 1.5',
    });
    const pids = members(paths).map((m) => m.pid!);
    const rss = pids.map(rssMiB);
    rows.push({
      figure: `RSS per idle teammate after a few tasks, at once (p50 of ${pids.length}); PSS`,
      measured: `${mib(percentile(rss, 50))}; PSS ${mib(percentile(pids.map(pssMiB), 50))}`,
      floor: `bare node + IPC ${mib(floorRss)}`,
      goal: '<= 50 MiB',
    });
    // The same teammates once idle for a while: the last message wakes above were answered in the
    // last few seconds, and a teammate gives back its young generation ~4 s after work
    // (teammate/heap-trim.ts). A fixed wait, not an ordering: nothing is waited for but time.
    await delay(SETTLE_MS);
    const settled = pids.map(rssMiB);
    rows.push({
      figure: `RSS per idle teammate after a few tasks, ${SETTLE_MS / 1000} s later (p50 of ${pids.length}; max); PSS`,
      measured: `${mib(percentile(settled, 50))} (max ${mib(Math.max(...settled))}); PSS ${mib(percentile(pids.map(pssMiB), 50))}`,
      floor: `bare node + IPC ${mib(floorRss)}`,
      goal: '<= 50 MiB',
    });
    const watches = pids.map((pid) => inotifyUseOf(pid));
    const daemonWatch = inotifyUseOf(team.daemonPid);
    rows.push({
      figure: 'inotify watches per teammate (10,000 tasks)',
      measured: `${Math.max(...watches.map((w) => w.watches))} (instances ${Math.max(...watches.map((w) => w.instances))}); daemon ${daemonWatch.watches}`,
      floor: '-',
      goal: 'O(1)',
    });

    // Idle CPU while 1,000 task files arrive (cp), then 60 s.
    const staged = stageBurst(10_001, 1_000);
    const all = [team.daemonPid, ...pids];
    const cpuBefore = teamCpu(all);
    execFileSync('sh', ['-c', `cp ${staged}/* ${paths.tasksDir}/`]);
    await delay(IDLE_SECONDS * 1000);
    const idleCpu = teamCpu(all) - cpuBefore;
    rows.push({
      figure: `idle CPU, daemon + ${TEAM} teammates, ${IDLE_SECONDS} s, 1,000 task files copied in`,
      measured: `${idleCpu.toFixed(2)} s`,
      floor: '-',
      goal: '<= 2 s',
    });
    fs.rmSync(staged, { recursive: true, force: true });

    // 100 teammates.
    await grow(paths, TEAM, BIG_TEAM);
    const bigTask = await taskWakes(paths, team.board, BIG_TEAM, SAMPLES);
    const bigMessage = await messageWakes(paths, BIG_TEAM, SAMPLES);
    const limits = readInotifyLimits();
    rows.push({
      figure: `${BIG_TEAM} teammates: wake p99 task -> claimed; message -> read`,
      measured: `${p(bigTask, 99)}; ${p(bigMessage, 99)} (max ${p(bigTask, 100)}; ${p(bigMessage, 100)})`,
      floor: `bare fs.watch p99 ${p(floorWatch, 99)}`,
      goal: '<= 100 ms',
    });
    notes.push(`inotify limits here: ${limits ? `${limits.maxInstances} instances, ${limits.maxWatches} watches per user` : 'unknown'}`);

    // teamd stop in the middle of another burst of 1,000 files.
    const second = stageBurst(11_001, 1_000);
    const copying = spawn('sh', ['-c', `cp ${second}/* ${paths.tasksDir}/`], { stdio: 'ignore' });
    const stopStarted = performance.now();
    teamd(['stop', '--dir', paths.root]);
    const stopMs = performance.now() - stopStarted;
    await new Promise((resolve) => copying.once('exit', resolve));
    fs.rmSync(second, { recursive: true, force: true });
    rows.push({
      figure: `\`teamd stop\` during a burst of 1,000 files (${BIG_TEAM} teammates)`,
      measured: `${formatMs(stopMs)} ms`,
      floor: '-',
      goal: '<= 2 s',
    });
  } finally {
    team.close();
  }

  // 3. Memory after a long run: one teammate, LONG_RUN_TASKS tasks.
  {
    const long = startDaemon(freshState());
    try {
      await grow(long.paths, 0, 1);
      for (let i = 0; i < LONG_RUN_TASKS; i++) await long.board.add({ subject: `long ${i}`, description: NOOP });
      await until(() => long.board.list({ status: 'completed' }).tasks.length === LONG_RUN_TASKS, `${LONG_RUN_TASKS} tasks done`, 900_000, 200);
      await until(allIdle(long.paths, 1), 'idle');
      await delay(2000);
      const pid = members(long.paths)[0]!.pid!;
      rows.push({
        figure: `RSS of a teammate after ${LONG_RUN_TASKS} tasks; PSS`,
        measured: `${mib(rssMiB(pid))}; PSS ${mib(pssMiB(pid))}`,
        floor: `bare node + IPC ${mib(floorRss)}`,
        goal: '<= 60 MiB',
      });
    } finally {
      long.close();
    }
  }

  process.stdout.write(
    `scale: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${SAMPLES} samples per latency\n` +
      `${table(
        ['figure', 'measured', 'floor (same run)', 'goal'],
        rows.map((row) => [row.figure, row.measured, row.floor, row.goal]),
      )}\n${notes.map((note) => `  ${note}`).join('\n')}\n`,
  );
}
