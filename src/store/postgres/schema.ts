import type { Pool, PoolClient } from 'pg';
import { TeamdError } from '../../errors.js';

/**
 * The schema, as numbered migrations applied in order: each runs once, in its own transaction,
 * and is recorded in teamd_schema. Several teams share one database; every row names its team.
 * Never edit a published migration: add the next one.
 */
export const MIGRATIONS: readonly { readonly version: number; readonly name: string; readonly sql: string }[] = [
  {
    version: 1,
    name: 'board, mailboxes, cursors, roster, hosts',
    sql: `
CREATE TABLE teamd_teams (
  team text PRIMARY KEY,
  next_task_id integer NOT NULL DEFAULT 1,
  -- The key that signs grants (inbox/protocol-key.ts): one per team, copied to each host's state folder.
  protocol_key text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE teamd_tasks (
  team text NOT NULL REFERENCES teamd_teams (team) ON DELETE CASCADE,
  id integer NOT NULL,
  status text NOT NULL,
  owner text,
  role text,
  key text,
  claim integer NOT NULL,
  blocked_by integer[] NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (team, id)
);
CREATE UNIQUE INDEX teamd_tasks_key ON teamd_tasks (team, key) WHERE key IS NOT NULL;
CREATE INDEX teamd_tasks_pending ON teamd_tasks (team, id) WHERE status = 'pending';
CREATE INDEX teamd_tasks_owned ON teamd_tasks (team, owner) WHERE status = 'in_progress';
CREATE TABLE teamd_inboxes (
  team text NOT NULL REFERENCES teamd_teams (team) ON DELETE CASCADE,
  recipient text NOT NULL,
  last_seq bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (team, recipient)
);
CREATE TABLE teamd_messages (
  team text NOT NULL,
  recipient text NOT NULL,
  seq bigint NOT NULL,
  id text NOT NULL,
  sender text NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (team, recipient, seq),
  UNIQUE (team, recipient, id),
  FOREIGN KEY (team, recipient) REFERENCES teamd_inboxes (team, recipient) ON DELETE CASCADE
);
CREATE TABLE teamd_cursors (
  team text NOT NULL REFERENCES teamd_teams (team) ON DELETE CASCADE,
  consumer text NOT NULL,
  seq bigint NOT NULL,
  last_id text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (team, consumer)
);
CREATE TABLE teamd_members (
  team text NOT NULL REFERENCES teamd_teams (team) ON DELETE CASCADE,
  name text NOT NULL,
  host text,
  data jsonb NOT NULL,
  PRIMARY KEY (team, name)
);
-- A command run on one host for another host's daemon (teamd spawn --host, teamd shutdown of its teammate).
CREATE TABLE teamd_host_requests (
  team text NOT NULL REFERENCES teamd_teams (team) ON DELETE CASCADE,
  id text NOT NULL,
  host text NOT NULL,
  request jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  answered_at timestamptz,
  answer jsonb,
  PRIMARY KEY (team, id)
);
CREATE INDEX teamd_host_requests_open ON teamd_host_requests (team, host) WHERE answered_at IS NULL;
CREATE TABLE teamd_hosts (
  team text NOT NULL REFERENCES teamd_teams (team) ON DELETE CASCADE,
  host text NOT NULL,
  pid integer,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  -- Set by the host that found its lease expired (and gave its members' tasks back); cleared by its next heartbeat.
  lost_at timestamptz,
  -- Set by the host's own daemon as it stops cleanly: its teammates' tasks go back at once.
  stopped_at timestamptz,
  PRIMARY KEY (team, host)
);
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** Any number: the advisory lock that serialises two `store init`s (or two daemons starting) on one database. */
const MIGRATION_LOCK = 0x7465616d; // "team"

/**
 * Brings the database to SCHEMA_VERSION. Idempotent: applied migrations are skipped. Refuses a
 * database newer than this teamd (a downgrade would misread its rows).
 */
export async function migrate(pool: Pool): Promise<{ from: number; to: number; applied: number[] }> {
  const client = await pool.connect();
  let broken = false;
  const lost = (): void => {
    broken = true;
  };
  client.on('error', lost);
  try {
    // Daemons starting together wait their turn: the migration, not a stuck session, holds this lock.
    await client.query("SET lock_timeout = '60s'");
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS teamd_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const from = await currentVersion(client);
      if (from > SCHEMA_VERSION) {
        throw new TeamdError('USAGE', `the database's teamd schema is version ${from}, newer than this teamd's ${SCHEMA_VERSION}: upgrade teamd`);
      }
      const applied: number[] = [];
      for (const migration of MIGRATIONS.filter((m) => m.version > from)) {
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO teamd_schema (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new TeamdError('IO', `migration ${migration.version} (${migration.name}) failed: ${error instanceof Error ? error.message : String(error)}`, {
            cause: error,
          });
        }
        applied.push(migration.version);
      }
      return { from, to: SCHEMA_VERSION, applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      await client.query('RESET lock_timeout');
    }
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

async function currentVersion(client: PoolClient): Promise<number> {
  const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM teamd_schema');
  return result.rows[0]?.version ?? 0;
}

/** The schema version in the database, or 0 before `teamd store init`. */
export async function schemaVersion(pool: Pool): Promise<number> {
  const exists = await pool.query<{ found: string | null }>("SELECT to_regclass('teamd_schema') AS found");
  if (exists.rows[0]?.found === null) return 0;
  const client = await pool.connect();
  const lost = (): void => {};
  client.on('error', lost);
  try {
    return await currentVersion(client);
  } finally {
    client.removeListener('error', lost);
    client.release();
  }
}
