import type { Pool, PoolClient } from 'pg';
import { TeamdError } from '../../errors.js';
import type { StatusLookup } from '../../domain/readiness.js';
import { taskSchema, type Task, type TaskStatus } from '../../contracts/task.js';
import type { CorruptTask } from '../../contracts/board-types.js';

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
export const READY = `t.team = $1 AND t.status = 'pending' AND t.owner IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM unnest(t.blocked_by) AS b(id)
    WHERE NOT EXISTS (SELECT 1 FROM teamd_tasks x WHERE x.team = t.team AND x.id = b.id AND x.status = 'completed'))`;

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
