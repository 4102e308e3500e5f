import { permitAll } from './team-settings.js';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Board } from '../src/store/files/board.js';
import { requestDaemon } from '../src/daemon/control-client.js';
import { isAlive, readLiveDaemon } from '../src/proc/pid-file.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths, type StatePaths } from '../src/paths.js';
import { readConfig } from '../src/roster/roster.js';
import { type Member } from '../src/contracts/roster.js';
import { availableMiB, cpuSeconds, rssMiB } from './proc.js';
import { formatMs, percentile } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const MAX_TEAM = Number(process.env.BENCH_MAX_TEAM ?? 100);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 10);

function teamd(args: string[]): string {
  return execFileSync(process.execPath, [TEAMD, ...args], { encoding: 'utf8' });
}

function member(paths: StatePaths, name: string): Member | undefined {
  return readConfig(paths.config).members.find((m) => m.name === name);
}

/** Polls (every `everyMs`) until a condition holds; returns when it did. */
async function until(probe: () => boolean, what: string, deadlineMs = 60_000, everyMs = 2): Promise<number> {
  const deadline = performance.now() + deadlineMs;
  while (!probe()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(everyMs);
  }
  return performance.now();
}

/** kill -9 of a daemon with `size` idle teammates: ms until every teammate has exited. */
async function orphanCheck(size: number): Promise<number> {
  const paths = freshTeam();
  permitAll(paths.root);
  teamd(['start', '--dir', paths.root]);
  const daemonPid = readLiveDaemon(paths)!.pid;
  try {
    for (let i = 0; i < size; i++) await spawnIdle(paths, `m-${i}`);
    const pids = readConfig(paths.config).members.map((m) => m.pid!);
    const killedAt = performance.now();
    process.kill(daemonPid, 'SIGKILL');
    return (await until(() => pids.every((pid) => !isAlive(pid)), 'teammates to exit after the daemon died', 30_000, 20)) - killedAt;
  } finally {
    for (const m of readConfig(paths.config).members) if (m.pid && isAlive(m.pid)) process.kill(m.pid, 'SIGKILL');
    fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
  }
}

/**
 * Work queued while the daemon was down (issue 47): a teammate asleep, the daemon stopped, a task
 * added; ms from `teamd start`'s return to the task's claim, per round.
 */
async function queuedAtStart(rounds: number): Promise<number[]> {
  const paths = freshTeam();
  permitAll(paths.root);
  fs.writeFileSync(paths.config, JSON.stringify({ members: [], settings: { idleTimeoutMs: 300 } }));
  const logger = createLogger();
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  const times: number[] = [];
  try {
    teamd(['start', '--dir', paths.root]);
    await requestDaemon(paths, { op: 'spawn', name: 'sleepy', role: 'bench' });
    for (let round = 0; round < rounds; round++) {
      await until(() => member(paths, 'sleepy')?.status === 'asleep', 'sleepy asleep', 60_000, 10);
      teamd(['stop', '--dir', paths.root]);
      const task = await board.add({ subject: `queued ${round}`, description: '```sh\necho queued\n```' });
      teamd(['start', '--dir', paths.root]);
      const started = performance.now();
      times.push((await until(() => board.get(task.id).status !== 'pending', 'the queued task claimed')) - started);
      await until(() => board.get(task.id).status === 'completed', 'the queued task done');
    }
  } finally {
    if (readLiveDaemon(paths)) teamd(['stop', '--dir', paths.root]);
    fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
  }
  return times;
}

/** `teamd spawn` against a daemon stopped with SIGSTOP: ms from the command's start to its exit, which names the stopped daemon (goal: under 2 s). */
function stoppedDaemonSeen(rounds: number): number[] {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const paths = freshTeam();
    teamd(['start', '--dir', paths.root]);
    const pid = readLiveDaemon(paths)!.pid;
    process.kill(pid, 'SIGSTOP');
    try {
      const started = performance.now();
      const spawned = spawnSync(process.execPath, [TEAMD, 'spawn', 'late', 'coder', '--dir', paths.root], { encoding: 'utf8' });
      times.push(performance.now() - started);
      if (spawned.status === 0 || !/stopped/i.test(spawned.stderr)) throw new Error(`spawn against a stopped daemon said: ${spawned.status} ${spawned.stderr}`);
    } finally {
      process.kill(pid, 'SIGCONT');
      teamd(['stop', '--dir', paths.root]);
      fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
    }
  }
  return times;
}

function freshTeam(): StatePaths {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-daemon-')), '.team');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'config.json'), JSON.stringify({ members: [], settings: { idleTimeoutMs: 0 } }));
  return statePaths(root);
}

function readyTimes(paths: StatePaths): number[] {
  return fs
    .readFileSync(paths.logFile('daemon'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"teammate ready"'))
    .map((line) => (JSON.parse(line) as { readyMs: number }).readyMs);
}

async function spawnIdle(paths: StatePaths, name: string): Promise<void> {
  await requestDaemon(paths, { op: 'spawn', name, role: 'bench' });
  await until(() => member(paths, name)?.status === 'idle', `${name} idle`);
}

export async function benchDaemon(): Promise<void> {
  const queued = await queuedAtStart(5);
  const stopped = stoppedDaemonSeen(5);
  const paths = freshTeam();
  permitAll(paths.root);
  teamd(['start', '--dir', paths.root]);
  const daemonPid = readLiveDaemon(paths)!.pid;
  const out: string[] = [
    `teamd spawn against a SIGSTOPped daemon, from the command's start to its error naming it (goal: under 2 s), 5 rounds: p50 ${formatMs(percentile(stopped, 50))} ms, max ${formatMs(Math.max(...stopped))} ms`,
    `a task added while the daemon was down, from teamd start's return to its claim (goal: under 1 s, the first safety re-scan being at 5 s), 5 rounds: p50 ${formatMs(percentile(queued, 50))} ms, max ${formatMs(Math.max(...queued))} ms`,
  ];
  try {
    // Spawn-to-ready, one at a time, for 10 teammates.
    for (let i = 0; i < 10; i++) await spawnIdle(paths, `idle-${i}`);
    const ready = readyTimes(paths);
    const workers = readConfig(paths.config).members.map((m) => m.pid!);
    const rss = workers.map(rssMiB);
    out.push(
      `spawn -> ready (fork to the worker's ready message), 10 teammates: p50 ${formatMs(percentile(ready, 50))} ms, max ${formatMs(Math.max(...ready))} ms`,
    );
    out.push(`resident memory per idle teammate: p50 ${percentile(rss, 50).toFixed(1)} MiB (daemon: ${rssMiB(daemonPid).toFixed(1)} MiB)`);

    // CPU while idle: nobody polls. Let start-up work (JIT, GC) settle first.
    await delay(SETTLE_SECONDS * 1000);
    const before = [daemonPid, ...workers].map(cpuSeconds);
    await delay(IDLE_SECONDS * 1000);
    const used = [daemonPid, ...workers].map((pid, i) => cpuSeconds(pid) - before[i]!);
    const total = used.reduce((a, b) => a + b, 0);
    out.push(
      `CPU over ${IDLE_SECONDS} s idle (after ${SETTLE_SECONDS} s to settle): daemon ${used[0]!.toFixed(2)} s, 10 teammates ${(total - used[0]!).toFixed(2)} s in all (${((total / IDLE_SECONDS) * 100).toFixed(2)} % of one core)`,
    );

    // A dead worker's task: kill -9 the teammate working on it; it is restarted and resumes it (or, in a crash loop, someone else takes it).
    const logger = createLogger();
    const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
    const gate = path.join(path.dirname(paths.root), 'gate');
    const resumeMs: number[] = [];
    for (let round = 0; round < 5; round++) {
      fs.mkdirSync(gate);
      const task = await board.add({ subject: `held ${round}`, description: '```sh\nwhile [ -d gate ]; do sleep 0.02; done\n```' });
      await until(() => board.get(task.id).status === 'in_progress', 'the task claimed');
      const owner = board.get(task.id).owner!;
      await until(() => member(paths, owner)?.status === 'working', `${owner} working`);
      const victim = member(paths, owner)!.pid!;
      const killedAt = performance.now();
      process.kill(victim, 'SIGKILL');
      // The same teammate restarted, or — from a second crash in a row (a crash loop) — another one that took the task it handed back.
      const back = await until(() => {
        const t = board.get(task.id);
        const m = t.owner ? member(paths, t.owner) : undefined;
        return t.status === 'in_progress' && m?.status === 'working' && m.pid !== victim;
      }, 'someone working on it again');
      resumeMs.push(back - killedAt);
      fs.rmdirSync(gate);
      await until(() => board.get(task.id).status === 'completed', 'the task completed');
    }
    out.push(
      `kill -9 of a teammate in the middle of a task -> someone working on it again: p50 ${formatMs(percentile(resumeMs, 50))} ms, max ${formatMs(Math.max(...resumeMs))} ms`,
    );

    // Largest team: keep spawning up to the cap, measuring memory.
    const spawnStarted = performance.now();
    for (let i = 10; i < MAX_TEAM; i++) await spawnIdle(paths, `idle-${i}`);
    const team = readConfig(paths.config).members.filter((m) => m.status === 'idle');
    const teamRss = team.map((m) => rssMiB(m.pid!));
    const perMate = teamRss.reduce((a, b) => a + b, 0) / teamRss.length;
    out.push(
      `largest team run: ${team.length} idle teammates (cap BENCH_MAX_TEAM=${MAX_TEAM}), spawned in ${((performance.now() - spawnStarted) / 1000).toFixed(1)} s; ` +
        `${perMate.toFixed(1)} MiB each; by memory this machine (${(availableMiB() / 1024).toFixed(1)} GiB available now) fits about ${Math.floor(availableMiB() / perMate) + team.length} more in all`,
    );

    // kill -9 of the daemon: every teammate notices the lost IPC channel and exits.
    const pids = team.map((m) => m.pid!);
    const killedAt = performance.now();
    process.kill(daemonPid, 'SIGKILL');
    const gone = await until(() => pids.every((pid) => !isAlive(pid)), 'teammates to exit after the daemon died', 30_000, 20);
    out.push(`kill -9 of the daemon with ${pids.length} teammates -> all of them gone in ${formatMs(gone - killedAt)} ms`);
  } finally {
    if (isAlive(daemonPid)) teamd(['stop', '--dir', paths.root]);
    for (const m of readConfig(paths.config).members) if (m.pid && isAlive(m.pid)) process.kill(m.pid, 'SIGKILL');
    fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
  }
  out.push(`kill -9 of the daemon with 10 teammates -> all of them gone in ${formatMs(await orphanCheck(10))} ms`);
  process.stdout.write(
    `daemon: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}\n${out.map((line) => `  ${line}`).join('\n')}\n`,
  );
}
