import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { HostLease } from '../../src/daemon/host-lease.js';
import { createLogger } from '../../src/log/logger.js';
import { PgBoard } from '../../src/store/postgres/pg-board.js';
import { PgHosts } from '../../src/store/postgres/pg-hosts.js';
import { PgMembers } from '../../src/store/postgres/pg-members.js';
import { createPool, SESSION_BOUNDS } from '../../src/store/postgres/pg-pool.js';
import { migrate } from '../../src/store/postgres/schema.js';
import { waitForAsync } from '../helpers/wait.js';

const url = inject('pgUrl');
const logger = createLogger();
const LEASE_MS = 1_500;

describe.skipIf(url === null)('a host lease on PostgreSQL (issue 48)', () => {
  it("a session of a lost host holding its task's row lock does not stop another host's heartbeat; the task is back once the lock goes", async () => {
    const team = `lease-${randomUUID().slice(0, 8)}`;
    const pool = createPool(url!, 4, logger);
    const beats = createPool(url!, 1, logger);
    const outsider = new pg.Client({ connectionString: url! });
    outsider.on('error', () => undefined);
    const leases: HostLease[] = [];
    onTestFinished(async () => {
      for (const each of leases) await each.close();
      await outsider.end().catch(() => undefined);
      await pool.end();
      await beats.end();
    });
    await migrate(pool);
    const board = new PgBoard({ pool, team, logger });
    const hosts = new PgHosts(pool, team, board, logger, beats);
    // Host "gone" ran alice, who holds task 1; it beat once, long enough ago.
    await hosts.heartbeat('gone', 4242);
    await new PgMembers(pool, team).publish('gone', [{ name: 'alice', role: 'coder', status: 'working' }]);
    await board.add({ subject: 'held' });
    const held = await board.claim(1, 'alice');
    // A session of the lost host, paused in the middle of a transaction on alice's task row.
    await outsider.connect();
    await outsider.query('BEGIN');
    await outsider.query('SELECT id FROM teamd_tasks WHERE team = $1 AND id = 1 FOR UPDATE', [team]);

    const beatOf = async (host: string) =>
      (await pool.query<{ at: Date }>('SELECT heartbeat_at AS at FROM teamd_hosts WHERE team = $1 AND host = $2', [team, host])).rows[0]!.at.getTime();
    const lostOf = async (host: string) =>
      (await pool.query<{ lost: boolean }>('SELECT lost_at IS NOT NULL AS lost FROM teamd_hosts WHERE team = $1 AND host = $2', [team, host])).rows[0]!.lost;
    // Two healthy hosts: each would count the other lost if its beats stopped for a lease.
    const lease = (host: string) => new HostLease({ hosts, host, pid: process.pid, leaseMs: () => LEASE_MS, onReclaimed: async () => {}, logger });
    leases.push(lease('healthy'), lease('watcher'));
    for (const each of leases) await each.start();
    await waitForAsync(async () => (await lostOf('gone')) || undefined, '"gone" counted lost');
    // The reclaims wait on the lock; the beats go on: six more of "healthy" (three leases' worth).
    const seen = new Set<number>();
    await waitForAsync(async () => {
      seen.add(await beatOf('healthy'));
      return seen.size > 6 || undefined;
    }, 'six beats while the lock is held');
    expect(await lostOf('healthy')).toBe(false);
    expect(await lostOf('watcher')).toBe(false);
    expect((await board.get(1)).status).toBe('in_progress');
    // The lock goes (the server ends an idle transaction after SESSION_BOUNDS.idleInTransactionMs; here, at once): the task is back at a later look.
    await outsider.query('ROLLBACK');
    await waitForAsync(async () => ((await board.get(1)).status === 'pending' ? true : undefined), "alice's task back on the board");
    expect(await board.get(1)).toMatchObject({ status: 'pending', owner: null, claim: held.claim });
  });

  it('every session runs under the bounds docs/stores.md states', async () => {
    const pool = createPool(url!, 1, logger);
    onTestFinished(() => pool.end());
    const show = async (setting: string) => (await pool.query<Record<string, string>>(`SHOW ${setting}`)).rows[0]![setting];
    expect(await show('lock_timeout')).toBe(`${SESSION_BOUNDS.lockTimeoutMs / 1000}s`);
    expect(await show('statement_timeout')).toBe(`${SESSION_BOUNDS.statementTimeoutMs / 1000}s`);
    expect(await show('idle_in_transaction_session_timeout')).toBe(`${SESSION_BOUNDS.idleInTransactionMs / 1000}s`);
  });
});
