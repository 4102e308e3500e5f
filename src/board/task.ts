import * as z from 'zod';
import { nameSchema } from '../names.js';

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const MAX_SUBJECT_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 64 * 1024;
export const MAX_RESULT_CHARS = 256 * 1024;

const isoTimestamp = z.iso.datetime({ offset: true });

export const taskIdSchema = z.number().int().positive();

export const WORKTREE_STATES = ['pending', 'active', 'committed', 'merged', 'needs-merge', 'removed'] as const;
export type WorktreeState = (typeof WORKTREE_STATES)[number];

/** A task's worktree: `<state>/worktrees/<name>` on the branch `teamd/<name>`, made from `base` when the task is claimed. */
export const worktreeSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,79}$/),
  branch: z.string().min(1).max(200),
  base: z.string().min(1).max(200),
  state: z.enum(WORKTREE_STATES),
  /** The commit made when the task completed (null: nothing had changed). */
  commit: z.string().nullable().optional(),
  /** The files in conflict when a merge was refused. */
  conflicts: z.array(z.string()).optional(),
});
export type TaskWorktree = z.infer<typeof worktreeSchema>;

/** The task file's wire format. Unknown extra fields are kept so other tools can annotate tasks. */
export const taskSchema = z
  .looseObject({
    id: taskIdSchema,
    subject: z.string().min(1).max(MAX_SUBJECT_CHARS),
    description: z.string().max(MAX_DESCRIPTION_CHARS),
    status: z.enum(TASK_STATUSES),
    owner: nameSchema.nullable(),
    blockedBy: z.array(taskIdSchema),
    claim: z.number().int().nonnegative(),
    /** Bumped by every write; the next one exists once (board/revision-tokens.ts). Files from before it read as 0. */
    rev: z.number().int().nonnegative().default(0),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    claimedAt: isoTimestamp.nullable(),
    completedAt: isoTimestamp.nullable(),
    result: z.string().max(MAX_RESULT_CHARS).nullable(),
    /** Who it is for: idle teammates of this role are rung first when it becomes ready (any teammate may claim it). */
    role: z.string().min(1).max(64).nullable().optional(),
    /** The git worktree the task is worked in (docs/worktrees.md); absent for tasks worked in the workspace. */
    worktree: worktreeSchema.optional(),
    /** Who added it, when a teammate or the lead agent did (a run's tasks are the lead's since its goal). */
    createdBy: nameSchema.optional(),
    /** Its creator's key for it: a second add with the same key returns this task instead of making another. */
    key: z.string().min(1).max(200).optional(),
  })
  .refine((task) => (task.status === 'pending') === (task.owner === null) || isTerminalStatus(task.status), {
    message: 'a pending task has no owner and an in_progress task has one',
  });

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
