import path from 'node:path';
import type { TaskBoard } from '../contracts/task-board.js';
import type { Task } from '../contracts/task.js';
import { TeamdError } from '../errors.js';
import type { StatePaths } from '../paths.js';
import { mergeBranch } from './merge.js';
import { recordWorktreeEvent } from './worktrees.js';

export interface TaskMerged {
  readonly task: number;
  readonly branch: string;
  readonly into: string;
  readonly commit: string;
  readonly fastForward: boolean;
}

/** The task a command names, which must have a worktree. */
export async function taskWithWorktree(board: TaskBoard, id: number): Promise<Task & { worktree: NonNullable<Task['worktree']> }> {
  const task = await board.get(id);
  if (!task.worktree) throw new TeamdError('INVALID_INPUT', `task ${id} has no worktree (it was added without --worktree)`);
  return task as Task & { worktree: NonNullable<Task['worktree']> };
}

/**
 * Merges a done task's worktree branch into the branch it started from (`teamd merge`, the
 * dashboard's merge button): all or nothing; a conflict marks the task needs-merge and says where.
 */
export async function mergeTask(board: TaskBoard, paths: StatePaths, id: number): Promise<TaskMerged> {
  const task = await taskWithWorktree(board, id);
  const workspace = path.dirname(paths.root);
  const { worktree } = task;
  if (worktree.state === 'merged') throw new TeamdError('INVALID_TRANSITION', `task ${id}'s branch ${worktree.branch} is already merged`);
  if (worktree.state === 'pending' || worktree.state === 'active')
    throw new TeamdError('INVALID_TRANSITION', `task ${id} is not done yet (its worktree is ${worktree.state}): merge it once the task completes`);
  const outcome = await mergeBranch(workspace, worktree.branch, worktree.base, `teamd: merge task ${id}: ${task.subject}`);
  if (outcome.kind === 'conflict') {
    await board.setWorktree(id, (w) => ({ ...w, state: 'needs-merge', conflicts: [...outcome.files] }));
    recordWorktreeEvent(paths, 'conflict', { taskId: id, branch: worktree.branch, files: outcome.files });
    throw new TeamdError(
      'INVALID_TRANSITION',
      `merging ${worktree.branch} into ${worktree.base} conflicts in ${outcome.files.join(', ')}; nothing was merged and the workspace is as it was. Task ${id} is marked needs-merge: resolve it by hand (git merge ${worktree.branch}) or rebase the branch`,
    );
  }
  await board.setWorktree(id, (w) => ({ ...w, state: 'merged', conflicts: [] }));
  recordWorktreeEvent(paths, 'merged', { taskId: id, branch: worktree.branch, into: worktree.base, commit: outcome.commit, fastForward: outcome.fastForward });
  return { task: id, branch: worktree.branch, into: worktree.base, commit: outcome.commit, fastForward: outcome.fastForward };
}
