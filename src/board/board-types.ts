import type { Readiness } from './readiness.js';
import type { Task, TaskStatus } from './task.js';
import type { CorruptTask } from './task-store.js';

/** What the board takes and gives (board.ts), apart from the board itself. */
export type TaskView = Task & Readiness;

export interface BoardListing {
  readonly tasks: TaskView[];
  /** Files that could not be read as tasks; every other task is still listed. */
  readonly problems: CorruptTask[];
}

export interface TaskFilter {
  readonly status?: TaskStatus | undefined;
  readonly owner?: string | undefined;
  readonly ready?: boolean | undefined;
}

export interface NewTask {
  readonly subject: string;
  /** The role it is meant for (idle teammates of that role are rung first). */
  readonly role?: string | undefined;
  readonly description?: string | undefined;
  readonly blockedBy?: readonly number[] | undefined;
  /** Work it in its own git worktree, made from `base` when claimed; the name defaults to `<id>-<slug of the subject>`. */
  readonly worktree?: { readonly name?: string | undefined; readonly base: string } | undefined;
  /** Who adds it (a teammate or the lead agent; none for the person). */
  readonly createdBy?: string | undefined;
  /** Makes the add idempotent: a task with this key already on the board is returned as it is. */
  readonly key?: string | undefined;
}
