import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { PgBoard } from '../../src/store/postgres/pg-board.js';
import { findServerBinaries, startLocalServer } from '../../src/store/postgres/local-server.js';
import { makeNet, type NetHost } from '../helpers/netns.js';
import { processesRunning, runTeamd } from '../helpers/processes.js';
import { isAlive, readLiveDaemon } from '../../src/proc/pid-file.js';
import { savedMessages } from '../helpers/session.js';
import { beforeThisTestsFoldersGo, makeTempDir } from '../helpers/temp-dir.js';
import { waitForAsync } from '../helpers/wait.js';

const LEASE_MS = 2_000;
// Its phases take about 25 s quiet; a query sent into a cut link waits out its 25 s bound before the
// host reconnects, and a loaded machine stretches each phase: 60 s (the suite's default) was met once in CI.
const PARTITION_TEST_MS = 180_000;
const missing =
  process.getuid?.() !== 0
    ? 'root (network namespaces)'
    : spawnSync('ip', ['-V']).status !== 0
      ? 'the ip command (iproute2)'
      : findServerBinaries() === null
        ? 'a PostgreSQL server (initdb, postgres)'
        : null;
if (missing) process.stderr.write(`partition test SKIPPED: it needs ${missing}\n`);

const sh = (...lines: string[]) => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

describe.skipIf(missing !== null)('two hosts and their database in network namespaces, cut apart and healed (issue 48)', { timeout: PARTITION_TEST_MS }, () => {
  it('a host cut off past its lease, the database cut off from everyone: every task completed once, none by a host that lost its lease, no message lost or doubled', async () => {
    // Where the test got to, and when: printed with the daemons' last log lines if it fails (a timeout included).
    const t0 = Date.now();
    const phases: string[] = [];
    const phase = (what: string) => {
      phases.push(`${what} at ${Date.now() - t0} ms`);
      if (process.env.TEAMD_PARTITION_FIGURES) process.stdout.write(`partition phase: ${phases.at(-1)}\n`);
    };
    // The daemons' last log lines, read before the folders go (onTestFailed runs after that).
    let tails = '';
    const readTails = () => {
      tails = [...dirs.entries()]
        .map(([host, dir]) => {
          const file = statePaths(dir).logFile('daemon');
          const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-15) : ['(no log)'];
          return `--- ${host.name}'s daemon log, last lines:\n${lines.map((line) => line.slice(0, 300)).join('\n')}`;
        })
        .join('\n');
    };
    onTestFailed(() => {
      process.stderr.write(`partition test failed; it had reached: ${phases.join('; ') || 'nothing'}\n${tails}\n`);
    });
    const net = makeNet(['h1', 'h2']);
    if (typeof net === 'string') throw new Error(net);
    // One clean-up, in this order whatever happened: the daemons (healed first), the database, the links.
    const daemons: string[] = [];
    const dirs = new Map<NetHost, string>();
    let server: Awaited<ReturnType<typeof startLocalServer>> | null = null;
    beforeThisTestsFoldersGo(async () => {
      readTails();
      for (const host of net.hosts) net.heal(host);
      for (const dir of daemons) {
        const stopped = await runTeamd(['stop', '--dir', dir]);
        if (process.env.TEAMD_PARTITION_FIGURES) {
          const pidFile = statePaths(dir).daemonPid;
          const raw = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : '(none)';
          process.stdout.write(`cleanup stop ${dir}: ${stopped.code} ${stopped.stdout.trim()} ${stopped.stderr.trim()}\npid file: ${raw}\n`);
          const m = /"pid":(\d+)/.exec(raw);
          if (m)
            process.stdout.write(
              `stat: ${
                fs.existsSync('/proc/' + m[1])
                  ? fs
                      .readFileSync('/proc/' + m[1] + '/stat', 'utf8')
                      .split(' ')
                      .slice(0, 22)
                      .join(' ')
                  : 'gone'
              }\n`,
            );
        }
      }
      await server?.stop();
      net.remove();
    });
    server = await startLocalServer({ network: net.subnet });
    const team = `part-${randomUUID().slice(0, 6)}`;
    for (const host of net.hosts) {
      const dir = path.join(makeTempDir(`teamd-${host.name}-`), 'ws', '.team');
      fs.mkdirSync(dir, { recursive: true });
      const store = `postgres://teamd@${host.gateway}:${server.port}/teamd`;
      fs.writeFileSync(
        statePaths(dir).config,
        JSON.stringify({ members: [], settings: { store, team, host: host.name, hostLeaseMs: LEASE_MS, idleTimeoutMs: 0 } }),
      );
      fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
      dirs.set(host, dir);
      const started = await runTeamd(['start', '--dir', dir], { wrap: ['ip', 'netns', 'exec', host.ns] });
      expect(started.code, started.stderr).toBe(0);
      daemons.push(dir);
    }
    phase('daemons started');
    const [h1, h2] = net.hosts as [NetHost, NetHost];
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dirs.get(h1)!])).code).toBe(0);
    expect((await runTeamd(['spawn', 'bob', 'coder', '--dir', dirs.get(h2)!])).code).toBe(0);

    // The test looks at the database from the root namespace, past any cut.
    const logger = createLogger();
    const pool = new pg.Pool({ connectionString: server.url, max: 2 });
    pool.on('error', () => undefined);
    onTestFinished(() => pool.end());
    const board = new PgBoard({ pool, team, logger });
    const hostLost = async (name: string) =>
      (await pool.query<{ lost: boolean }>('SELECT lost_at IS NOT NULL AS lost FROM teamd_hosts WHERE team = $1 AND host = $2', [team, name])).rows[0]?.lost ===
      true;
    const lead = async () =>
      (
        await pool.query<{ data: { type: string; from: string; content: string; taskId?: number } }>(
          "SELECT data FROM teamd_messages WHERE team = $1 AND recipient = 'lead' ORDER BY seq",
          [team],
        )
      ).rows.map((row) => row.data);
    const allDone = async (ids: readonly number[]) => {
      for (const id of ids) if ((await board.get(id)).status !== 'completed') return undefined;
      return true;
    };

    // 1. A host cut off past its lease, in the middle of a task.
    const first: number[] = [];
    for (let i = 0; i < 4; i++) first.push((await board.add({ subject: `first ${i}`, description: sh('sleep 1', `echo first-${i}`) })).id);
    const held = await waitForAsync(async () => {
      for (const id of first) {
        const task = await board.get(id);
        if (task.status === 'in_progress' && task.owner === 'alice') return task;
      }
      return undefined;
    }, 'alice (h1) working on a task');
    phase('alice working');
    const cutAt = Date.now();
    net.cut(h1);
    // Messages for alice while her host is cut off: each reaches her once, and her one reply each reaches the lead.
    for (let i = 0; i < 5; i++) expect((await runTeamd(['send', 'alice', `note ${i}`, '--dir', dirs.get(h2)!])).code).toBe(0);
    await waitForAsync(async () => ((await hostLost('h1')) ? true : undefined), 'h1 counted lost');
    const taken = await waitForAsync(
      async () => {
        const task = await board.get(held.id);
        return task.claim > held.claim ? task : undefined;
      },
      "alice's task given back and taken again",
      60_000,
    );
    phase('task taken again');
    const reclaimedMs = Date.now() - cutAt;
    net.heal(h1);
    await waitForAsync(() => allDone(first), 'the first tasks done', 60_000).catch(async (error: unknown) => {
      // Seen once in six CI runs: say which task is left, and where, for the next look.
      const left = await Promise.all(first.map(async (id) => ({ id, task: await board.get(id) })));
      const states = left.map(({ id, task }) => `#${id} ${task.status} owner ${task.owner ?? '-'} claim ${task.claim}`);
      throw new Error(`${error instanceof Error ? error.message : String(error)}: ${states.join('; ')}`, { cause: error });
    });
    await waitForAsync(async () => ((await hostLost('h1')) ? undefined : true), 'h1 heartbeating again');

    phase('first tasks done, h1 back');
    // 2. The database cut off from everyone for a while.
    const second: number[] = [];
    for (let i = 0; i < 3; i++) second.push((await board.add({ subject: `second ${i}`, description: sh(`echo second-${i}`) })).id);
    const logOf = (host: NetHost) => fs.readFileSync(statePaths(dirs.get(host)!).logFile('daemon'), 'utf8');
    const before = new Map(net.hosts.map((host) => [host, logOf(host).length]));
    net.cut(h1);
    net.cut(h2);
    const lostDatabase = (host: NetHost) => logOf(host).slice(before.get(host)).includes('cannot heartbeat');
    await waitForAsync(async () => (lostDatabase(h1) && lostDatabase(h2)) || undefined, 'both hosts lose the database');
    phase('both lost the database');
    net.heal(h1);
    net.heal(h2);
    await waitForAsync(() => allDone(second), 'the second tasks done', 90_000);

    phase('second tasks done');
    // Every task completed once, by whoever held its last claim; none by a host that had lost its lease.
    for (const id of [...first, ...second]) {
      const task = await board.get(id);
      expect(task, `task ${id}`).toMatchObject({ status: 'completed' });
      const notices = (await lead()).filter((m) => m.type === 'task_completed' && m.taskId === id);
      expect(notices, `task_completed notices of task ${id}`).toHaveLength(1);
      expect(notices[0]!.from).toBe(task.owner);
    }
    expect(taken.claim).toBeGreaterThan(held.claim);
    const finished = await board.get(held.id);
    expect(finished.claim).toBe(taken.claim);
    // Messages: each note in alice's conversation once (she may take several in one turn), and no reply of hers doubled.
    const told = savedMessages(statePaths(dirs.get(h1)!).sessionFile('alice')).flatMap((m) =>
      m.content.flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'tool_result' && typeof b.content !== 'string' ? b.content.map((t) => t.text) : [])),
    );
    for (let i = 0; i < 5; i++)
      expect(
        told.filter((text) => text.startsWith('[teamd:message') && text.endsWith(`note ${i}`)),
        `note ${i} in alice's conversation`,
      ).toHaveLength(1);
    const replies = (await lead()).filter((m) => m.from === 'alice' && m.type === 'message').map((m) => m.content);
    expect(replies.length).toBeGreaterThan(0);
    expect(new Set(replies).size).toBe(replies.length);

    phase('checked');
    // 3. A host stopped while it cannot reach the database: it stops all the same (its lease runs out), leaving no process.
    const h1Daemon = readLiveDaemon(statePaths(dirs.get(h1)!))!;
    net.cut(h1);
    const stopped = await runTeamd(['stop', '--dir', dirs.get(h1)!]);
    expect(
      stopped.code,
      stopped.stderr +
        fs
          .readFileSync(statePaths(dirs.get(h1)!).logFile('daemon'), 'utf8')
          .split('\n')
          .slice(-25)
          .map((l) => l.slice(0, 300))
          .join('\n'),
    ).toBe(0);
    expect(isAlive(h1Daemon.pid)).toBe(false);
    expect(processesRunning(dirs.get(h1)!)).toEqual([]);
    net.heal(h1);
    if (process.env.TEAMD_PARTITION_FIGURES) process.stdout.write(`partition: h1's task taken again ${reclaimedMs} ms after the cut (lease ${LEASE_MS} ms)\n`);
  });
});
