import type { Pool } from 'pg';
import type { Logger } from '../../log/logger.js';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { HostAnswer, HostRegistry, HostRequest, HostView, Reclaimed } from '../../contracts/host-registry.js';
import { controlRequestSchema } from '../../contracts/control-protocol.js';
import { NOTIFY_CHANNEL } from './notify.js';
import type { TaskBoard } from '../../contracts/task-board.js';
import { inTransaction, storeError } from './transaction.js';
import { isoTime } from '../../platform/iso-time.js';

const hostAnswerSchema = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);

/**
 * Hosts of a team in PostgreSQL. The database's clock decides expiry (now() - heartbeat_at), so
 * hosts' clocks need not agree. Marking a host lost takes its row with FOR UPDATE SKIP LOCKED:
 * when two daemons notice at once, one of them reclaims. Heartbeats go over a connection of their
 * own (`beats`), so no other work of this process can hold one up waiting for a connection.
 */
export class PgHosts implements HostRegistry {
  constructor(
    private readonly pool: Pool,
    private readonly team: string,
    private readonly board: TaskBoard,
    private readonly logger: Logger,
    private readonly beats: Pool = pool,
  ) {}

  async heartbeat(host: string, pid: number): Promise<{ readonly lost: boolean }> {
    // The row locked first: a reclaim that committed while this beat waited is seen, not a snapshot from before it.
    return inTransaction(this.beats, async (client) => {
      await client.query('INSERT INTO teamd_teams (team) VALUES ($1) ON CONFLICT DO NOTHING', [this.team]);
      const before = await client.query<{ lost: boolean }>('SELECT lost_at IS NOT NULL AS lost FROM teamd_hosts WHERE team = $1 AND host = $2 FOR UPDATE', [
        this.team,
        host,
      ]);
      await client.query(
        `INSERT INTO teamd_hosts (team, host, pid, started_at, heartbeat_at, lost_at, stopped_at) VALUES ($1, $2, $3, now(), now(), NULL, NULL)
         ON CONFLICT (team, host) DO UPDATE SET pid = excluded.pid, heartbeat_at = now(), lost_at = NULL, stopped_at = NULL`,
        [this.team, host, pid],
      );
      return { lost: before.rows[0]?.lost === true };
    });
  }

  async leave(host: string): Promise<void> {
    try {
      await this.pool.query('UPDATE teamd_hosts SET stopped_at = now(), pid = NULL WHERE team = $1 AND host = $2', [this.team, host]);
    } catch (error) {
      throw storeError(error);
    }
  }

  async reclaimExpired(self: string, leaseMs: number): Promise<Reclaimed[]> {
    const lost = await inTransaction(this.pool, async (client) => {
      const expired = await client.query<{ host: string; stopped: boolean }>(
        `SELECT host, stopped_at IS NOT NULL AS stopped FROM teamd_hosts
         WHERE team = $1 AND host <> $2 AND lost_at IS NULL
           AND (stopped_at IS NOT NULL OR heartbeat_at < now() - make_interval(secs => $3::float8 / 1000))
         FOR UPDATE SKIP LOCKED`,
        [this.team, self, leaseMs],
      );
      const found: { host: string; members: string[]; stopped: boolean }[] = [];
      for (const { host, stopped } of expired.rows) {
        await client.query('UPDATE teamd_hosts SET lost_at = now() WHERE team = $1 AND host = $2', [this.team, host]);
        const members = await client.query<{ name: string }>('SELECT name FROM teamd_members WHERE team = $1 AND host = $2', [this.team, host]);
        found.push({ host, members: members.rows.map((row) => row.name), stopped });
      }
      return found;
    });
    const reclaimed: Reclaimed[] = [];
    for (const { host, members, stopped } of lost) reclaimed.push({ host, members, released: await this.giveBack(host, members), stopped });
    // A task that could not be given back at once (its row locked by a session of the lost host,
    // which the lock timeout does not wait out) is given back at a later look.
    const stranded = await this.pool.query<{ host: string; name: string }>(
      `SELECT m.host, m.name FROM teamd_members m JOIN teamd_hosts h ON h.team = m.team AND h.host = m.host
       WHERE m.team = $1 AND h.lost_at IS NOT NULL AND m.host <> $2`,
      [this.team, self],
    );
    const fresh = new Set(lost.map((found) => found.host));
    for (const { host, name } of stranded.rows.filter((row) => !fresh.has(row.host))) {
      const released = await this.giveBack(host, [name]);
      if (released.length > 0) this.logger.info({ host, teammate: name, released }, 'gave back tasks of a lost host that were locked before');
    }
    return reclaimed;
  }

  /** The in-progress tasks of a lost host's teammates back to the board, each fenced by the claim seen; those that cannot be now are left for the next look. */
  private async giveBack(host: string, members: readonly string[]): Promise<number[]> {
    const released: number[] = [];
    for (const name of members) {
      for (const task of await this.board.ownedBy(name)) {
        try {
          // Fenced by the claim seen: a task its holder finished (or that moved on) meanwhile is left alone.
          await this.board.release(task.id, { owner: name, claim: task.claim });
          released.push(task.id);
        } catch (error) {
          this.logger.warn({ err: error, taskId: task.id, host }, 'could not give back a task of a lost host now; trying again at the next look');
        }
      }
    }
    return released;
  }

  async ask(host: string, request: HostRequest): Promise<string> {
    const id = randomUUID();
    await inTransaction(this.pool, async (client) => {
      await client.query('INSERT INTO teamd_host_requests (team, id, host, request) VALUES ($1, $2, $3, $4)', [this.team, id, host, JSON.stringify(request)]);
      await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, JSON.stringify({ team: this.team, kind: 'request', host, id })]);
    });
    return id;
  }

  async answerOf(id: string): Promise<HostAnswer | null> {
    try {
      const result = await this.pool.query<{ answer: unknown }>(
        'SELECT answer FROM teamd_host_requests WHERE team = $1 AND id = $2 AND answered_at IS NOT NULL',
        [this.team, id],
      );
      if (!result.rows[0]) return null;
      const parsed = hostAnswerSchema.safeParse(result.rows[0].answer);
      return parsed.success ? parsed.data : { ok: false, code: 'PROTOCOL', message: 'the other host answered with something that is not an answer' };
    } catch (error) {
      throw storeError(error);
    }
  }

  async take(host: string, handle: (request: HostRequest) => Promise<HostAnswer>): Promise<number> {
    let handled = 0;
    // Bounded by the open requests: each round answers one, or ends.
    for (;;) {
      const done = await inTransaction(this.pool, async (client) => {
        const open = await client.query<{ id: string; request: unknown }>(
          'SELECT id, request FROM teamd_host_requests WHERE team = $1 AND host = $2 AND answered_at IS NULL ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED',
          [this.team, host],
        );
        const row = open.rows[0];
        if (!row) return false;
        // Checked as the control socket checks a request: names, roles and sizes.
        const parsed = controlRequestSchema.safeParse(row.request);
        const answer: HostAnswer =
          parsed.success && (parsed.data.op === 'spawn' || parsed.data.op === 'shutdown')
            ? await handle(parsed.data)
            : { ok: false, code: 'PROTOCOL', message: 'not a request another host may make (spawn or shutdown, well formed)' };
        await client.query('UPDATE teamd_host_requests SET answered_at = now(), answer = $3 WHERE team = $1 AND id = $2', [
          this.team,
          row.id,
          JSON.stringify(answer),
        ]);
        await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, JSON.stringify({ team: this.team, kind: 'answer', id: row.id })]);
        return true;
      });
      if (!done) return handled;
      handled++;
    }
  }

  async list(): Promise<HostView[]> {
    try {
      const result = await this.pool.query<{ host: string; pid: number | null; heartbeat_at: Date; lost: boolean; stopped: boolean }>(
        'SELECT host, pid, heartbeat_at, lost_at IS NOT NULL AND stopped_at IS NULL AS lost, stopped_at IS NOT NULL AS stopped FROM teamd_hosts WHERE team = $1 ORDER BY host',
        [this.team],
      );
      return result.rows.map((row) => ({ host: row.host, pid: row.pid, heartbeatAt: isoTime(row.heartbeat_at), lost: row.lost, stopped: row.stopped }));
    } catch (error) {
      throw storeError(error);
    }
  }
}
