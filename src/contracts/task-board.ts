import type { BoardListing, NewTask, TaskFilter, TaskView, BoardCounts, Actor } from './board-types.js';
import type { Task, TaskWorktree } from './task.js';

export type { BoardCounts, BoardListing, NewTask, TaskFilter, TaskView };

/**
 * The shared task board, whichever store holds it (files in the state folder, or PostgreSQL).
 * Both keep the same invariants (docs/stores.md): a claim is exclusive and bumps the task's claim
 * number, the fencing token; a finish presenting an older claim is refused (STALE_CLAIM); blockers
 * never form a cycle; the same errors, with the same codes, for the same wrong requests.
 */
export interface TaskBoard {
  add(input: NewTask): Promise<Task>;
  /** Tasks with their readiness; rows or files that are not valid tasks are listed as problems. */
  list(filter?: TaskFilter): Promise<BoardListing>;
  /** Tasks by status, the first `failedShown` failed ones and the problems, as a listing would give them, for teamd status. */
  counts(failedShown: number): Promise<BoardCounts>;
  get(id: number): Promise<TaskView>;
  /** The tasks `name` has in progress. */
  ownedBy(name: string): Promise<Task[]>;
  /** Up to `limit` tasks that look ready now, lowest id first (a claim checks again). */
  readyTasks(limit: number): Promise<{ id: number; role: string | null }[]>;
  claim(id: number, owner: string): Promise<Task>;
  /** Claims the lowest-id ready task (preferred ids first), or null when none can be claimed now. */
  claimNext(owner: string, options?: { skip?: ReadonlySet<number>; prefer?: readonly number[] }): Promise<Task | null>;
  complete(id: number, actor: Actor, result?: string | null): Promise<Task>;
  fail(id: number, actor: Actor, reason: string): Promise<Task>;
  cancel(id: number): Promise<Task>;
  release(id: number, actor?: Actor): Promise<Task>;
  giveWorktree(id: number, spec: { readonly name?: string | undefined; readonly base: string }): Promise<Task>;
  setWorktree(id: number, change: (worktree: TaskWorktree) => TaskWorktree): Promise<Task>;
  setBlockers(id: number, blockedBy: readonly number[]): Promise<Task>;
  /** Brings the store in line after a crash or an upgrade (the daemon, at start, before any teammate runs). */
  reconcile(): Promise<{ moved: number; indexed: number }>;
}
