import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requestDaemon } from '../src/daemon/control-client.js';
import { readConfig } from '../src/roster/roster.js';
import { freshState, readyTimes, startDaemon, until, wallMsInterleaved } from './scale.js';
import { formatMs, percentile, table } from './stats.js';
import { fileURLToPath } from 'node:url';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const SPAWNS = Number(process.env.BENCH_STARTUP_SPAWNS ?? 30);
const NOOP = '```sh\ntrue\n```';

/** Fork -> first IPC message of a Node child that does nothing else: the floor of a teammate's spawn -> ready. */
async function bareIpcChild(script: string): Promise<number> {
  const started = performance.now();
  const child = fork(script, [], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('error', reject);
  });
  const ms = performance.now() - started;
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return ms;
}

/**
 * Issue 44's two start-up budgets, each beside its floor measured in the same run, with
 * NODE_EXTRA_CA_CERTS unset: `teamd status --json` within 2x `node -e ''`, and a teammate's
 * spawn -> ready (the daemon's fork to the teammate's ready message) within 1.5x a bare Node
 * IPC child's fork -> first message. Spawns and bare forks alternate, one at a time.
 */
export async function benchStartup(): Promise<void> {
  delete process.env.NODE_EXTRA_CA_CERTS;
  const bare = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-startup-')), 'bare-child.cjs');
  fs.writeFileSync(bare, "process.send('ready');\n");
  const team = startDaemon(freshState());
  try {
    const bareForks: number[] = [];
    for (let i = 0; i < SPAWNS; i++) {
      bareForks.push(await bareIpcChild(bare));
      await requestDaemon(team.paths, { op: 'spawn', name: `mate-${i}`, role: 'bench' });
      await until(() => readConfig(team.paths.config).members.filter((m) => m.status === 'idle').length > i, `mate-${i} idle`);
    }
    const ready = readyTimes(team.paths);
    // The board of a team that has worked: 100 tasks done, every teammate idle again.
    for (let i = 0; i < 100; i++) await team.board.add({ subject: `task ${i}`, description: NOOP });
    await until(() => team.board.list({ status: 'completed' }).tasks.length === 100, 'the 100 tasks done');
    await until(() => readConfig(team.paths.config).members.every((m) => m.status === 'idle'), 'the team idle');
    const [nodeBare, status] = wallMsInterleaved([
      ['-e', ''],
      [TEAMD, 'status', '--json', '--dir', team.paths.root],
    ]) as [number, number];
    const readyP50 = percentile(ready, 50);
    const forkP50 = percentile(bareForks, 50);
    process.stdout.write(
      `\n## start-up (${os.cpus().length} cores, node ${process.version}, NODE_EXTRA_CA_CERTS unset, ${SPAWNS} spawns)\n\n${table(
        ['figure', 'measured', 'floor, same run', 'goal'],
        [
          [
            '`teamd status --json` wall, 100 tasks, idle team (p50 of 21)',
            `${formatMs(status)} ms (${(status / nodeBare).toFixed(2)}x)`,
            `node -e '' ${formatMs(nodeBare)} ms`,
            '<= 2x',
          ],
          [
            `spawn -> ready p50 (p25 ${formatMs(percentile(ready, 25))}, p90 ${formatMs(percentile(ready, 90))})`,
            `${formatMs(readyP50)} ms (${(readyP50 / forkP50).toFixed(2)}x)`,
            `bare IPC child fork -> message p50 ${formatMs(forkP50)} ms (p25 ${formatMs(percentile(bareForks, 25))}, p90 ${formatMs(percentile(bareForks, 90))})`,
            '<= 1.5x',
          ],
        ],
      )}\n`,
    );
  } finally {
    team.close();
    fs.rmSync(path.dirname(bare), { recursive: true, force: true });
  }
}
