import type { Task, TaskStatus } from './task.js';

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

export interface Readiness {
  /** pending, unowned, and every blocker completed. */
  readonly ready: boolean;
  /** pending, but a blocker failed or was cancelled (directly or further up): it will never become ready by itself. */
  readonly stuck: boolean;
  /** Blockers not completed yet. */
  readonly waitingOn: readonly number[];
  /** Failed or cancelled tasks this one transitively depends on. */
  readonly stuckOn: readonly number[];
}

/** A task file that exists but cannot be used; left untouched on disk for a person to inspect. */
export interface CorruptTask {
  readonly id: number;
  readonly file: string;
  readonly reason: string;
}

/**
 * Who is asking. With an owner, the task must be theirs; with a claim number, it must be the
 * current one (a worker presumed dead presents an older number and is refused). Neither: the lead.
 */
export interface Actor {
  readonly owner?: string | undefined;
  readonly claim?: number | undefined;
}

/** The board by status, for `teamd status`: what it shows without listing every task. */
export interface BoardCounts {
  readonly counts: Record<TaskStatus, number>;
  /** Failed tasks, lowest id first, at most as many as asked for (`counts.failed` says how many there are). */
  readonly failed: readonly Task[];
  /** Files or rows that are not valid tasks, lowest id first, as a listing reports them. */
  readonly problems: readonly CorruptTask[];
  /** Tasks in progress and who holds each, lowest id first (few: one per working teammate). */
  readonly held: readonly { readonly id: number; readonly owner: string }[];
}
