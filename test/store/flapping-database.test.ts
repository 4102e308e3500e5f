import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { isAlive } from '../../src/proc/process-identity.js';
import { readLiveDaemon } from '../../src/proc/pid-file.js';
import { PgBoard } from '../../src/store/postgres/pg-board.js';
import { findServerBinaries, startLocalServer } from '../../src/store/postgres/local-server.js';
import { member } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { beforeThisTestsFoldersGo, makeTempDir } from '../helpers/temp-dir.js';
import { waitForAsync } from '../helpers/wait.js';

const missing = findServerBinaries() === null ? 'a PostgreSQL server (initdb, postgres)' : null;
if (missing) process.stderr.write(`flapping-database test SKIPPED: it needs ${missing}\n`);

describe.skipIf(missing !== null)('a database that comes and goes (issue 48)', () => {
  it('every connection of the team ended again and again while it works: every process keeps running, every task is done once', async () => {
    // A server of its own: ending every connection of the tests' shared one would cut other tests short.
    const server = await startLocalServer();
    // One clean-up, the daemon before its database (a stop that finds the database gone takes longer).
    let stopDaemon = async (): Promise<unknown> => undefined;
    beforeThisTestsFoldersGo(async () => {
      await stopDaemon();
      await server.stop();
    });
    const dir = path.join(makeTempDir('teamd-ws-'), '.team');
    fs.mkdirSync(dir, { recursive: true });
    const team = `flap-${randomUUID().slice(0, 6)}`;
    fs.writeFileSync(statePaths(dir).config, JSON.stringify({ members: [], settings: { store: server.url, team, idleTimeoutMs: 0 } }));
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
    expect((await runTeamd(['start', '--dir', dir])).code).toBe(0);
    stopDaemon = () => runTeamd(['stop', '--dir', dir]);
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    const pids = ['alice', 'bob'].map((name) => member(dir, name)!.pid!);
    const daemonPid = readLiveDaemon(statePaths(dir))!.pid;

    const admin = new pg.Client({ connectionString: server.url, application_name: 'flapper' });
    admin.on('error', () => undefined);
    await admin.connect();
    onTestFinished(() => admin.end().catch(() => undefined));
    const pool = new pg.Pool({ connectionString: server.url, max: 1, application_name: 'flapper' });
    pool.on('error', () => undefined);
    onTestFinished(() => pool.end());
    const board = new PgBoard({ pool, team, logger: createLogger() });
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push((await board.add({ subject: `t${i}`, description: `\`\`\`sh\nsleep 0.3\necho t${i}\n\`\`\`` })).id);

    // Every connection but ours ended, then again once the team has reconnected, twenty times over.
    const others = async () =>
      Number(
        (
          await admin.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 'teamd' AND application_name <> 'flapper' AND pid <> pg_backend_pid()",
          )
        ).rows[0]!.n,
      );
    for (let round = 0; round < 20; round++) {
      await waitForAsync(async () => ((await others()) > 0 ? true : undefined), `the team connected again (round ${round})`);
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'teamd' AND application_name <> 'flapper' AND pid <> pg_backend_pid()",
      );
    }

    await waitForAsync(
      async () => {
        for (const id of ids) if ((await board.get(id).catch(() => null))?.status !== 'completed') return undefined;
        return true;
      },
      'every task done',
      120_000,
    );
    // Nobody crashed: the same processes, no restart counted.
    expect(isAlive(daemonPid)).toBe(true);
    for (const [i, name] of ['alice', 'bob'].entries()) {
      expect(member(dir, name), name).toMatchObject({ pid: pids[i], restarts: 0 });
      expect(isAlive(pids[i]!)).toBe(true);
    }
    const completions = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM teamd_messages WHERE team = $1 AND recipient = 'lead' AND data->>'type' = 'task_completed'",
      [team],
    );
    expect(Number(completions.rows[0]!.n)).toBe(ids.length);
  });
});
