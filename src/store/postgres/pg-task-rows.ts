import type { Pool, PoolClient } from 'pg';
import { TeamdError } from '../../errors.js';
import type { StatusLookup } from '../../domain/readiness.js';
import { taskSchema, type Task, type TaskStatus } from '../../contracts/task.js';
import type { CorruptTask } from '../../contracts/board-types.js';
import { NOTIFY_CHANNEL } from './notify.js';

/** A task row as the board reads it: its id column and its JSON. */
export interface TaskRow {
  readonly id: number;
  readonly data: unknown;
}

/** Blocker lookups: the transitive blockers of some tasks, through pending ones (what readiness walks). */
const CLOSURE = `
WITH RECURSIVE closure(id) AS (
  SELECT unnest($2::integer[])
  UNION
  SELECT unnest(t.blocked_by) FROM teamd_tasks t JOIN closure c ON t.id = c.id WHERE t.team = $1 AND t.status = 'pending'
)
SELECT t.id, t.status, t.blocked_by FROM teamd_tasks t JOIN closure c ON t.id = c.id WHERE t.team = $1`;

/** Pending, and every blocker completed: the claimable rows (`t` is teamd_tasks, $1 the team). */
// Each blocker looked up by the whole primary key (a scalar subquery: one unique index probe,
// whatever the planner's statistics say). The anti-join written before was planned, on a team
// the server had not analyzed yet, as a scan of the whole team per pending task: 19 ms at 500
// blocked tasks, every idle teammate's look (bench store, "hosts").
export const READY = `t.team = $1 AND t.status = 'pending' AND t.owner IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM unnest(t.blocked_by) AS b(id)
    WHERE (SELECT x.status FROM teamd_tasks x WHERE x.team = t.team AND x.id = b.id) IS DISTINCT FROM 'completed')`;

/** What readiness needs of the tasks' blockers, transitively through pending ones: one query. */
export async function blockerLookup(client: Pool | PoolClient, team: string, tasks: readonly Task[]): Promise<StatusLookup> {
  const known = new Map<number, { status: TaskStatus; blockedBy: readonly number[] }>(tasks.map((task) => [task.id, task]));
  const wanted = [...new Set(tasks.flatMap((task) => task.blockedBy))].filter((id) => !known.has(id));
  if (wanted.length > 0) {
    const result = await client.query<{ id: number; status: TaskStatus; blocked_by: number[] }>(CLOSURE, [team, wanted]);
    for (const row of result.rows) if (!known.has(row.id)) known.set(row.id, { status: row.status, blockedBy: row.blocked_by });
  }
  return (id) => known.get(id);
}

/** A row's task, parsed as a task file is (one validator per wire format), or what is wrong with it. */
export function parseTaskRow(team: string, row: TaskRow): { task: Task } | { problem: CorruptTask } {
  const parsed = taskSchema.safeParse(row.data);
  if (parsed.success && parsed.data.id === row.id) return { task: parsed.data };
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  const reason = parsed.success
    ? `it says id ${parsed.data.id} but its row is ${row.id}`
    : `${issue?.path.join('.') ? `${issue.path.join('.')}: ` : ''}${issue?.message}`;
  return { problem: { id: row.id, file: `teamd_tasks row (${team}, ${row.id})`, reason } };
}

export function parseTaskRowOrThrow(team: string, row: TaskRow): Task {
  const parsed = parseTaskRow(team, row);
  if ('task' in parsed) return parsed.task;
  throw new TeamdError('TASK_CORRUPT', `task ${row.id} in the store is not a valid task (${parsed.problem.reason}); fix or delete its row in teamd_tasks`, {
    details: { id: row.id },
  });
}

export async function insertTask(client: PoolClient, team: string, task: Task): Promise<void> {
  await client.query('INSERT INTO teamd_tasks (team, id, status, owner, role, key, claim, blocked_by, data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
    team,
    task.id,
    task.status,
    task.owner,
    task.role ?? null,
    task.key ?? null,
    task.claim,
    task.blockedBy,
    JSON.stringify(task),
  ]);
}

/** Writes the next version (rev + 1) of a task whose row this transaction holds locked. */
export async function updateTask(client: PoolClient, team: string, changed: Task, rev: number): Promise<Task> {
  const next: Task = { ...changed, rev: rev + 1 };
  await client.query(
    'UPDATE teamd_tasks SET status = $3, owner = $4, role = $5, key = $6, claim = $7, blocked_by = $8, data = $9 WHERE team = $1 AND id = $2',
    [team, next.id, next.status, next.owner, next.role ?? null, next.key ?? null, next.claim, next.blockedBy, JSON.stringify(next)],
  );
  await notifyTask(client, team, next);
  return next;
}

/** Told to every listener when the transaction commits (never for a change rolled back). */
export async function notifyTask(client: PoolClient, team: string, task: Task): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, JSON.stringify({ team, kind: 'task', id: task.id, status: task.status })]);
}

/** Locks the team's row (made on first use) and returns the next task id. */
export async function lockTeam(client: PoolClient, team: string): Promise<number> {
  await client.query('INSERT INTO teamd_teams (team) VALUES ($1) ON CONFLICT DO NOTHING', [team]);
  const result = await client.query<{ next_task_id: number }>('SELECT next_task_id FROM teamd_teams WHERE team = $1 FOR UPDATE', [team]);
  return result.rows[0]!.next_task_id;
}

/** Refuses blockers that are not tasks of the team (UNKNOWN_BLOCKER). */
export async function refuseUnknownBlockers(client: PoolClient, team: string, blockedBy: readonly number[]): Promise<void> {
  if (blockedBy.length === 0) return;
  const found = await client.query<{ id: number }>('SELECT id FROM teamd_tasks WHERE team = $1 AND id = ANY($2::integer[])', [team, blockedBy]);
  const known = new Set(found.rows.map((row) => row.id));
  const unknown = blockedBy.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new TeamdError('UNKNOWN_BLOCKER', `unknown blocker task id(s): ${unknown.join(', ')} (see: teamd task list)`, { details: { unknown } });
  }
}
