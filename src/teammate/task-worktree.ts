import path from 'node:path';
import type { TaskBoard } from '../contracts/task-board.js';
import type { Task } from '../contracts/task.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { commitWorktree, ensureWorktree, recordWorktreeEvent } from '../worktree/worktrees.js';

/**
 * The worktree of the task in hand: made (or found again, after a restart) when the task is
 * taken, the folder the teammate's tools work in, and committed before the task is completed.
 */
/** What the task in hand and its worktree need: the teammate, its workspace and state folder, the board. */
export interface TaskHandDeps {
  readonly name: string;
  readonly workspace: string;
  readonly paths: StatePaths;
  readonly board: TaskBoard;
  readonly logger: Logger;
}

export class TaskWorktrees {
  constructor(private readonly deps: TaskHandDeps) {}

  /**
   * The folder the task is worked in: its worktree (made now, synchronously, so the very next tool
   * call runs in it), or the workspace for a task without one.
   */
  enter(task: Task): string {
    const { deps } = this;
    if (!task.worktree) return deps.workspace;
    const { path: where, created } = ensureWorktree(deps.workspace, deps.paths, task.worktree);
    if (task.worktree.state === 'pending')
      deps.board
        .setWorktree(task.id, (w) => ({ ...w, state: 'active' }))
        .catch((error: unknown) => deps.logger.warn({ err: error, taskId: task.id }, 'could not mark the worktree active'));
    recordWorktreeEvent(deps.paths, created ? 'created' : 'bound', { taskId: task.id, teammate: deps.name, branch: task.worktree.branch, path: where });
    deps.logger.info({ taskId: task.id, worktree: where, branch: task.worktree.branch, created }, created ? 'worktree created' : 'worktree found again');
    return where;
  }

  /** Before the task is marked completed: its changes committed on its branch, and the commit recorded on the task. */
  async commit(task: Task): Promise<void> {
    const { deps } = this;
    if (!task.worktree) return;
    const where = path.join(deps.paths.root, 'worktrees', task.worktree.name);
    const commit = commitWorktree(where, `teamd: task ${task.id}: ${task.subject}`, `teamd ${deps.name}`);
    await deps.board.setWorktree(task.id, (w) => ({ ...w, state: 'committed', commit }));
    recordWorktreeEvent(deps.paths, 'committed', { taskId: task.id, teammate: deps.name, branch: task.worktree.branch, commit });
    deps.logger.info({ taskId: task.id, branch: task.worktree.branch, commit }, commit ? 'worktree committed' : 'worktree had no changes to commit');
  }
}
