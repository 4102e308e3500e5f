import { TeamdError } from '../errors.js';
import { worktreeSchema, type Task, type TaskWorktree } from '../contracts/task.js';

/** A new task's worktree: named after the task unless a name is given, on the branch teamd/<name>. */
export function worktreeFor(id: number, subject: string, spec: { readonly name?: string | undefined; readonly base: string }): TaskWorktree {
  const slug = subject
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const name = spec.name ?? (slug ? `${id}-${slug}` : String(id));
  const parsed = worktreeSchema.shape.name.safeParse(name);
  if (!parsed.success)
    throw new TeamdError(
      'INVALID_INPUT',
      `a worktree name is 1-80 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit; got ${JSON.stringify(name)}`,
    );
  return { name, branch: `teamd/${name}`, base: spec.base, state: 'pending', commit: null };
}

/** A pending task without one, given a worktree (create_worktree); any other task is refused. */
export function withNewWorktree(task: Task, spec: { readonly name?: string | undefined; readonly base: string }, updatedAt: string): Task {
  if (task.status !== 'pending') throw new TeamdError('INVALID_TRANSITION', `task ${task.id} is ${task.status}: only a pending task can get a worktree`);
  if (task.worktree) throw new TeamdError('INVALID_TRANSITION', `task ${task.id} already has the worktree ${task.worktree.name}`);
  return { ...task, worktree: worktreeFor(task.id, task.subject, spec), updatedAt };
}

/** A task's worktree record changed (its state, commit, conflicts), checked as a task file's must be. */
export function withWorktreeChange(task: Task, change: (worktree: TaskWorktree) => TaskWorktree, updatedAt: string): Task {
  if (!task.worktree) throw new TeamdError('INVALID_INPUT', `task ${task.id} has no worktree`);
  return { ...task, worktree: worktreeSchema.parse(change(task.worktree)), updatedAt };
}
