import type { Task } from '../contracts/task.js';
import { TaskWorktrees, type TaskHandDeps } from './task-worktree.js';

/**
 * The task a teammate works on, and what goes with it: the claim it holds on each task of this
 * conversation (its fencing tokens), the tasks it already took, and the folder its tools work
 * in (the task's worktree, or the workspace).
 */
export class TaskInHand {
  /** The claim held on each task taken in this conversation: the fencing token for its writes. */
  readonly claims = new Map<number, number>();
  /** Tasks taken in this process, not offered again by the next-task search. */
  readonly worked = new Set<number>();
  private task: Task | null = null;
  private folder: string;
  private readonly worktrees: TaskWorktrees;

  constructor(private readonly deps: TaskHandDeps) {
    this.folder = deps.workspace;
    this.worktrees = new TaskWorktrees(deps);
  }

  get current(): Task | null {
    return this.task;
  }

  /** Where the tools work now. */
  get root(): string {
    return this.folder;
  }

  /** Takes a task: its claim kept, its worktree made or found again (throws when git refuses; nothing is taken then). */
  take(task: Task): void {
    const folder = this.worktrees.enter(task);
    this.worked.add(task.id);
    this.claims.set(task.id, task.claim);
    this.task = task;
    this.folder = folder;
  }

  /** The task ended (completed, failed, released): back to the workspace. */
  drop(): void {
    this.task = null;
    this.folder = this.deps.workspace;
  }

  /** Before `complete_task` tells the board: the task's worktree committed, if it has one. */
  async beforeComplete(id: number): Promise<void> {
    if (this.task?.id === id) await this.worktrees.commit(await this.deps.board.get(id));
  }
}
