import type { Pool, PoolClient } from 'pg';
import { TeamdError } from '../../errors.js';
import type { Logger } from '../../log/logger.js';
import { parseName } from '../../contracts/names.js';
import { assessReadiness, findCycle } from '../../domain/readiness.js';
import { MAX_RESULT_CHARS, newTask, type Task, type TaskWorktree } from '../../contracts/task.js';
import * as transitions from '../../domain/transitions.js';
import type { Actor, CorruptTask } from '../../contracts/board-types.js';
import { checkNewTask, dedupe, validateText } from '../../domain/validation.js';
import { withNewWorktree, withWorktreeChange, worktreeFor } from '../../domain/worktree-spec.js';
import { countListing } from '../../domain/board-counts.js';
import type { BoardCounts, BoardListing, NewTask, TaskBoard, TaskFilter, TaskView } from '../../contracts/task-board.js';
import { inTransaction, patiently, storeError } from './transaction.js';
import { type Patience } from '../open-store-deps.js';
import {
  blockerLookup,
  insertTask,
  lockTeam,
  notifyTask,
  parseTaskRow,
  parseTaskRowOrThrow,
  READY,
  refuseUnknownBlockers,
  updateTask,
  type TaskRow,
} from './pg-task-rows.js';
import { isoTime } from '../../platform/iso-time.js';

export interface PgBoardDeps {
  readonly pool: Pool;
  readonly team: string;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** How long to wait out an unreachable store (none: fail at once). */
  readonly patience?: Patience;
}

/** Candidates one claimNext looks at before it gives up for now (each refused one is skipped next time). */
const MAX_CLAIM_ATTEMPTS = 64;

/**
 * The board in PostgreSQL: one row per task (the task's JSON in `data`, with its status, owner,
 * role, key, claim and blockers as columns for the queries). Every change is a transaction that
 * locks the task's row (SELECT … FOR UPDATE) and applies the same transition functions as the file
 * store; adds and blocker edits also lock the team's row, so ids are gapless and two edits can
 * never close a cycle between them. A claim takes the first ready row nobody else has locked
 * (FOR UPDATE SKIP LOCKED): the row lock is the one atomic step only one claimer can win.
 */
export class PgBoard implements TaskBoard {
  private readonly pool: Pool;
  private readonly team: string;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly patience: Patience | undefined;

  constructor(deps: PgBoardDeps) {
    this.pool = deps.pool;
    this.team = deps.team;
    this.logger = deps.logger;
    this.now = deps.now ?? (() => new Date());
    this.patience = deps.patience;
  }

  async add(input: NewTask): Promise<Task> {
    const { subject, description, blockedBy, role, key } = checkNewTask(input);
    const task = await this.transaction(async (client) => {
      const next = await lockTeam(client, this.team);
      if (key !== undefined) {
        const existing = await client.query<TaskRow>('SELECT id, data FROM teamd_tasks WHERE team = $1 AND key = $2', [this.team, key]);
        if (existing.rows[0]) return { task: parseTaskRowOrThrow(this.team, existing.rows[0]), created: false };
      }
      await refuseUnknownBlockers(client, this.team, blockedBy);
      const worktree = input.worktree ? worktreeFor(next, subject, input.worktree) : undefined;
      const created = newTask(next, { subject, description, blockedBy, role, worktree, createdBy: input.createdBy, key }, this.timestamp());
      await insertTask(client, this.team, created);
      await client.query('UPDATE teamd_teams SET next_task_id = $2 WHERE team = $1', [this.team, next + 1]);
      await notifyTask(client, this.team, created);
      return { task: created, created: true };
    });
    if (task.created) this.logger.info({ taskId: task.task.id, blockedBy }, 'task added');
    return task.task;
  }

  async list(filter: TaskFilter = {}): Promise<BoardListing> {
    const liveOnly = filter.ready === true || filter.status === 'pending' || filter.status === 'in_progress';
    const rows = await this.query<TaskRow>(
      `SELECT id, data FROM teamd_tasks WHERE team = $1
        AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR owner = $3) ${liveOnly ? "AND status IN ('pending', 'in_progress')" : ''}
        ORDER BY id`,
      [this.team, filter.status ?? null, filter.owner ?? null],
    );
    const tasks: Task[] = [];
    const problems: CorruptTask[] = [];
    for (const row of rows) {
      const parsed = parseTaskRow(this.team, row);
      if ('task' in parsed) tasks.push(parsed.task);
      else problems.push(parsed.problem);
    }
    for (const problem of problems) this.logger.warn(problem, 'invalid task row skipped (left untouched)');
    const lookup = await this.reading((pool) => blockerLookup(pool, this.team, tasks));
    const views = tasks
      .map((task) => ({ ...task, ...assessReadiness(task, lookup) }))
      .filter((view) => filter.ready === undefined || view.ready === filter.ready);
    return { tasks: views, problems };
  }

  /** From the whole listing: an invalid row is found only by parsing it, and the listing reports those. */
  async counts(failedShown: number): Promise<BoardCounts> {
    const listing = await this.list();
    return countListing(listing.tasks, listing.problems, failedShown);
  }

  async get(id: number): Promise<TaskView> {
    return this.reading(async (pool) => {
      const task = await this.require(pool, id, false);
      return { ...task, ...assessReadiness(task, await blockerLookup(pool, this.team, [task])) };
    });
  }

  async ownedBy(name: string): Promise<Task[]> {
    const rows = await this.query<TaskRow>("SELECT id, data FROM teamd_tasks WHERE team = $1 AND status = 'in_progress' AND owner = $2 ORDER BY id", [
      this.team,
      name,
    ]);
    return rows.flatMap((row) => {
      const parsed = parseTaskRow(this.team, row);
      return 'task' in parsed ? [parsed.task] : [];
    });
  }

  async readyTasks(limit: number): Promise<{ id: number; role: string | null }[]> {
    if (limit <= 0) return [];
    const rows = await this.query<{ id: number; role: string | null }>(`SELECT t.id, t.role FROM teamd_tasks t WHERE ${READY} ORDER BY t.id LIMIT $2`, [
      this.team,
      limit,
    ]);
    return rows.map((row) => ({ id: row.id, role: row.role }));
  }

  async claim(id: number, owner: string): Promise<Task> {
    parseName(owner, 'owner');
    return this.mutate(id, async (client, task) =>
      transitions.claimTask(task, owner, assessReadiness(task, await blockerLookup(client, this.team, [task])), this.timestamp()),
    );
  }

  async claimNext(owner: string, options: { skip?: ReadonlySet<number>; prefer?: readonly number[] } = {}): Promise<Task | null> {
    parseName(owner, 'owner');
    const skip = new Set(options.skip ?? []);
    const prefer = [...(options.prefer ?? [])];
    // Bounded: every candidate refused under its lock is skipped the next time round.
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const outcome = await this.transaction(async (client) => {
        const found = await client.query<TaskRow>(
          `SELECT t.id, t.data FROM teamd_tasks t WHERE ${READY} AND NOT (t.id = ANY($2::integer[]))
            ORDER BY (t.id = ANY($3::integer[])) DESC, t.id LIMIT 1 FOR UPDATE SKIP LOCKED`,
          [this.team, [...skip], prefer],
        );
        const row = found.rows[0];
        if (!row) return { kind: 'none' as const };
        const parsed = parseTaskRow(this.team, row);
        if (!('task' in parsed)) {
          this.logger.warn(parsed.problem, 'invalid task row skipped by claims (left untouched): fix or delete it');
          return { kind: 'skip' as const, id: row.id };
        }
        const task = parsed.task;
        let claimed: Task;
        try {
          claimed = transitions.claimTask(task, owner, assessReadiness(task, await blockerLookup(client, this.team, [task])), this.timestamp());
        } catch (error) {
          if (error instanceof TeamdError && error.code === 'NOT_READY') return { kind: 'skip' as const, id: task.id };
          throw error;
        }
        const written = await updateTask(client, this.team, claimed, task.rev);
        return { kind: 'claimed' as const, task: written };
      });
      if (outcome.kind === 'none') return null;
      if (outcome.kind === 'claimed') {
        this.logChange(outcome.task);
        return outcome.task;
      }
      skip.add(outcome.id);
    }
    return null;
  }

  async complete(id: number, actor: Actor, result: string | null = null): Promise<Task> {
    const checked = result === null ? null : validateText('result', result, MAX_RESULT_CHARS, false);
    return this.mutate(id, async (_client, task) => transitions.completeTask(task, actor, checked, this.timestamp()));
  }

  async fail(id: number, actor: Actor, reason: string): Promise<Task> {
    const checked = validateText('reason', reason, MAX_RESULT_CHARS, true);
    return this.mutate(id, async (_client, task) => transitions.failTask(task, actor, checked, this.timestamp()));
  }

  async cancel(id: number): Promise<Task> {
    return this.mutate(id, async (_client, task) => transitions.cancelTask(task, this.timestamp()));
  }

  async release(id: number, actor: Actor = {}): Promise<Task> {
    return this.mutate(id, async (_client, task) => transitions.releaseTask(task, actor, this.timestamp()));
  }

  async giveWorktree(id: number, spec: { readonly name?: string | undefined; readonly base: string }): Promise<Task> {
    return this.mutate(id, async (_client, task) => withNewWorktree(task, spec, this.timestamp()));
  }

  async setWorktree(id: number, change: (worktree: TaskWorktree) => TaskWorktree): Promise<Task> {
    return this.mutate(id, async (_client, task) => withWorktreeChange(task, change, this.timestamp()));
  }

  async setBlockers(id: number, rawBlockedBy: readonly number[]): Promise<Task> {
    const blockedBy = dedupe(rawBlockedBy);
    const written = await this.transaction(async (client) => {
      // The team's row: no other blocker edit runs until this one commits, so no cycle closes between two.
      await lockTeam(client, this.team);
      await refuseUnknownBlockers(client, this.team, blockedBy);
      if (blockedBy.includes(id)) {
        throw new TeamdError('DEPENDENCY_CYCLE', `task ${id} cannot be blocked by itself`, { details: { id, cycle: [id, id] } });
      }
      const edges = await client.query<{ id: number; blocked_by: number[] }>('SELECT id, blocked_by FROM teamd_tasks WHERE team = $1', [this.team]);
      const byId = new Map(edges.rows.map((row) => [row.id, row.blocked_by]));
      const cycle = findCycle(id, blockedBy, (other) => byId.get(other) ?? []);
      if (cycle) {
        throw new TeamdError('DEPENDENCY_CYCLE', `refused: task ${id} blocked by ${blockedBy.join(', ')} would close the cycle ${cycle.join(' -> ')}`, {
          details: { id, cycle },
        });
      }
      const task = await this.require(client, id, true);
      return updateTask(client, this.team, transitions.updateBlockers(task, blockedBy, this.timestamp()), task.rev);
    });
    this.logChange(written);
    return written;
  }

  /** Nothing to repair: every change was one transaction. */
  async reconcile(): Promise<{ moved: number; indexed: number }> {
    return { moved: 0, indexed: 0 };
  }

  /** The read-check-write of one task, under its row lock. */
  private async mutate(id: number, change: (client: PoolClient, task: Task) => Promise<Task>): Promise<Task> {
    const written = await this.transaction(async (client) => {
      const task = await this.require(client, id, true);
      return updateTask(client, this.team, await change(client, task), task.rev);
    });
    this.logChange(written);
    return written;
  }

  private async require(client: Pool | PoolClient, id: number, lock: boolean): Promise<Task> {
    const result = await client.query<TaskRow>(`SELECT id, data FROM teamd_tasks WHERE team = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [this.team, id]);
    const row = result.rows[0];
    if (!row) throw new TeamdError('TASK_NOT_FOUND', `no task ${id} on the board of team ${this.team} (see: teamd task list)`, { details: { id } });
    return parseTaskRowOrThrow(this.team, row);
  }

  private async query<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    return this.reading(async (pool) => (await pool.query<R>(sql, params)).rows);
  }

  /** Reads outside a transaction: database errors become TeamdErrors, and an unreachable store is waited for (patience). */
  private reading<T>(read: (pool: Pool) => Promise<T>): Promise<T> {
    return patiently(this.patience, async () => {
      try {
        return await read(this.pool);
      } catch (error) {
        throw storeError(error);
      }
    });
  }

  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work, this.patience);
  }

  private logChange(task: Task): void {
    const line = { taskId: task.id, status: task.status, owner: task.owner, claim: task.claim };
    if (task.status === 'failed') this.logger.warn({ ...line, reason: task.result }, 'task failed');
    else this.logger.info(line, 'task updated');
  }

  private timestamp(): string {
    return isoTime(this.now());
  }
}
