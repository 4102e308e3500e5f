import * as z from './zod-mini.js';
import { nameSchema } from './names.js';

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const MAX_SUBJECT_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 64 * 1024;
export const MAX_RESULT_CHARS = 256 * 1024;
/**
 * The largest task file read: above it, a file is reported as not a valid task without reading it.
 * The fields' own limits keep a file teamd writes under ~2 MiB (each character escaped as \uXXXX).
 */
export const MAX_TASK_FILE_BYTES = 8 * 1024 * 1024;

const isoTimestamp = z.iso.datetime({ offset: true });

export const taskIdSchema = z.number().check(z.int(), z.positive());

export const WORKTREE_STATES = ['pending', 'active', 'committed', 'merged', 'needs-merge', 'removed'] as const;
export type WorktreeState = (typeof WORKTREE_STATES)[number];

/** A task's worktree: `<state>/worktrees/<name>` on the branch `teamd/<name>`, made from `base` when the task is claimed. */
export const worktreeSchema = z.object({
  name: z.string().check(z.regex(/^[a-z0-9][a-z0-9._-]{0,79}$/)),
  branch: z.string().check(z.minLength(1), z.maxLength(200)),
  base: z.string().check(z.minLength(1), z.maxLength(200)),
  state: z.enum(WORKTREE_STATES),
  /** The commit made when the task completed (null: nothing had changed). */
  commit: z.optional(z.nullable(z.string())),
  /** The files in conflict when a merge was refused. */
  conflicts: z.optional(z.array(z.string())),
});
export type TaskWorktree = z.infer<typeof worktreeSchema>;

/** The task file's wire format. Unknown extra fields are kept so other tools can annotate tasks. */
export const taskSchema = z
  .looseObject({
    id: taskIdSchema,
    subject: z.string().check(z.minLength(1), z.maxLength(MAX_SUBJECT_CHARS)),
    description: z.string().check(z.maxLength(MAX_DESCRIPTION_CHARS)),
    status: z.enum(TASK_STATUSES),
    owner: z.nullable(nameSchema),
    blockedBy: z.array(taskIdSchema),
    claim: z.number().check(z.int(), z.nonnegative()),
    /** Bumped by every write; the next one exists once (store/files/revision-tokens.ts). Files from before it read as 0. */
    rev: z._default(z.number().check(z.int(), z.nonnegative()), 0),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    claimedAt: z.nullable(isoTimestamp),
    completedAt: z.nullable(isoTimestamp),
    result: z.nullable(z.string().check(z.maxLength(MAX_RESULT_CHARS))),
    /** Who it is for: idle teammates of this role are rung first when it becomes ready (any teammate may claim it). */
    role: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(64)))),
    /** The git worktree the task is worked in (docs/worktrees.md); absent for tasks worked in the workspace. */
    worktree: z.optional(worktreeSchema),
    /** Who added it, when a teammate or the lead agent did (a run's tasks are the lead's since its goal). */
    createdBy: z.optional(nameSchema),
    /** Its creator's key for it: a second add with the same key returns this task instead of making another. */
    key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  })
  .check(
    z.refine((task) => (task.status === 'pending') === (task.owner === null) || isTerminalStatus(task.status), {
      message: 'a pending task has no owner and an in_progress task has one',
    }),
  );

export type Task = z.infer<typeof taskSchema>;

export const isTerminal = isTerminalStatus;

function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A task as `add` creates it: pending, unowned, never claimed. Inputs must already be validated. */
export function newTask(
  id: number,
  fields: Pick<Task, 'subject' | 'description' | 'blockedBy'> & {
    role?: string | undefined;
    worktree?: TaskWorktree | undefined;
    createdBy?: string | undefined;
    key?: string | undefined;
  },
  now: string,
): Task {
  return {
    ...(fields.createdBy === undefined ? {} : { createdBy: fields.createdBy }),
    ...(fields.key === undefined ? {} : { key: fields.key }),
    ...(fields.role === undefined ? {} : { role: fields.role }),
    ...(fields.worktree === undefined ? {} : { worktree: fields.worktree }),
    id,
    subject: fields.subject,
    description: fields.description,
    status: 'pending',
    owner: null,
    blockedBy: fields.blockedBy,
    claim: 0,
    rev: 0,
    createdAt: now,
    updatedAt: now,
    claimedAt: null,
    completedAt: null,
    result: null,
  };
}
