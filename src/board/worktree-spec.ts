import { TeamdError } from '../errors.js';
import { worktreeSchema, type TaskWorktree } from '../contracts/task.js';

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
