import type { Logger } from '../../log/logger.js';
import { createPool } from './pg-pool.js';
import { TeamdError } from '../../errors.js';
import { taskSchema } from '../../contracts/task.js';
import { messageSchema } from '../../contracts/message.js';
import { memberSchema } from '../../contracts/roster.js';
import { redactUrl } from '../store-setting.js';
import { inboxOfConsumer, type DumpableStore, type TeamDump } from '../team-dump.js';
import { migrate } from './schema.js';
import { inTransaction, storeError } from './transaction.js';

/**
 * One team's rows in a PostgreSQL store, read in one snapshot and written in one transaction:
 * a copy that fails half-way leaves the target as it was.
 */
export function pgDump(url: string, team: string, host: string, leaseMs: number, logger: Logger): DumpableStore & { close(): Promise<void> } {
  const pool = createPool(url, 2, logger);
  let ready: Promise<unknown> | null = null;
  const schema = (): Promise<unknown> => (ready ??= translated(() => migrate(pool)));
  return {
    describe: `${redactUrl(url)} (team ${team})`,
    dump: async () => {
      await schema();
      return inTransaction(pool, async (client) => {
        // One snapshot of every table, so the counts agree with each other.
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const teamRow = await client.query<{ next_task_id: number; protocol_key: string | null }>(
          'SELECT next_task_id, protocol_key FROM teamd_teams WHERE team = $1',
          [team],
        );
        const taskRows = await client.query<{ id: number; data: unknown }>('SELECT id, data FROM teamd_tasks WHERE team = $1 ORDER BY id', [team]);
        const tasks = taskRows.rows.map((row) => {
          const parsed = taskSchema.safeParse(row.data);
          if (!parsed.success)
            throw new TeamdError('TASK_CORRUPT', `task ${row.id} of team ${team} is not a valid task, so nothing was copied: fix or delete its row`);
          return parsed.data;
        });
        const messageRows = await client.query<{ recipient: string; seq: string; data: unknown }>(
          'SELECT recipient, seq, data FROM teamd_messages WHERE team = $1 ORDER BY recipient, seq',
          [team],
        );
        const inboxes = new Map<string, { seqs: number[]; messages: TeamDump['inboxes'][number]['messages'][number][] }>();
        for (const row of messageRows.rows) {
          const parsed = messageSchema.safeParse(row.data);
          if (!parsed.success) continue;
          const inbox = inboxes.get(row.recipient) ?? { seqs: [], messages: [] };
          inbox.seqs.push(Number(row.seq));
          inbox.messages.push(parsed.data);
          inboxes.set(row.recipient, inbox);
        }
        const cursorRows = await client.query<{ consumer: string; seq: string; last_id: string | null }>(
          'SELECT consumer, seq, last_id FROM teamd_cursors WHERE team = $1 ORDER BY consumer',
          [team],
        );
        const cursors = cursorRows.rows.map((row) => {
          const inbox = inboxOfConsumer(row.consumer);
          return {
            consumer: row.consumer,
            inbox,
            consumed: (inboxes.get(inbox)?.seqs ?? []).filter((seq) => seq <= Number(row.seq)).length,
            lastId: row.last_id,
          };
        });
        const memberRows = await client.query<{ data: unknown }>('SELECT data FROM teamd_members WHERE team = $1 ORDER BY name', [team]);
        return {
          tasks,
          nextTaskId: Math.max(teamRow.rows[0]?.next_task_id ?? 1, ...tasks.map((task) => task.id + 1)),
          inboxes: [...inboxes].map(([name, inbox]) => ({ name, messages: inbox.messages })),
          cursors,
          members: memberRows.rows.flatMap((row) => {
            const parsed = memberSchema.safeParse(row.data);
            return parsed.success ? [parsed.data] : [];
          }),
          protocolKey: teamRow.rows[0]?.protocol_key ?? null,
        };
      });
    },
    running: async () => {
      await schema();
      const live = await translated(() =>
        pool.query<{ host: string }>(
          'SELECT host FROM teamd_hosts WHERE team = $1 AND lost_at IS NULL AND stopped_at IS NULL AND heartbeat_at > now() - make_interval(secs => $2::float8 / 1000) ORDER BY host',
          [team, leaseMs],
        ),
      );
      return live.rows.map((row) => `the daemon of host ${row.host} (team ${team})`);
    },
    isEmpty: async () => {
      await schema();
      const found = await translated(() =>
        pool.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM teamd_tasks WHERE team = $1) + (SELECT count(*) FROM teamd_messages WHERE team = $1)
                + (SELECT count(*) FROM teamd_members WHERE team = $1) AS n`,
          [team],
        ),
      );
      return Number(found.rows[0]?.n ?? 0) === 0;
    },
    load: async (dump) => {
      await schema();
      await inTransaction(pool, async (client) => {
        await client.query(
          `INSERT INTO teamd_teams (team, next_task_id, protocol_key) VALUES ($1, $2, $3)
           ON CONFLICT (team) DO UPDATE SET next_task_id = excluded.next_task_id, protocol_key = COALESCE(excluded.protocol_key, teamd_teams.protocol_key)`,
          [team, dump.nextTaskId, dump.protocolKey],
        );
        for (const task of dump.tasks) {
          await client.query(
            'INSERT INTO teamd_tasks (team, id, status, owner, role, key, claim, blocked_by, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
            [team, task.id, task.status, task.owner, task.role ?? null, task.key ?? null, task.claim, task.blockedBy, JSON.stringify(task)],
          );
        }
        for (const inbox of dump.inboxes) {
          await client.query('INSERT INTO teamd_inboxes (team, recipient, last_seq) VALUES ($1, $2, $3)', [team, inbox.name, inbox.messages.length]);
          let seq = 0;
          for (const message of inbox.messages) {
            seq++;
            await client.query('INSERT INTO teamd_messages (team, recipient, seq, id, sender, data) VALUES ($1, $2, $3, $4, $5, $6)', [
              team,
              inbox.name,
              seq,
              message.id,
              message.from,
              JSON.stringify(message),
            ]);
          }
        }
        for (const cursor of dump.cursors) {
          await client.query('INSERT INTO teamd_cursors (team, consumer, seq, last_id) VALUES ($1, $2, $3, $4)', [
            team,
            cursor.consumer,
            cursor.consumed,
            cursor.lastId,
          ]);
        }
        for (const member of dump.members) {
          await client.query('INSERT INTO teamd_members (team, name, host, data) VALUES ($1, $2, $3, $4)', [team, member.name, host, JSON.stringify(member)]);
        }
      });
    },
    close: async () => {
      if (!pool.ended) await pool.end();
    },
  };
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw storeError(error);
  }
}
