import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { git, repoRoot } from './git.js';
import { gitWorktrees, recordWorktreeEvent } from './worktrees.js';

/**
 * At `teamd start`: git forgets worktrees whose folders are gone (`git worktree prune`), and a
 * folder under `<state>/worktrees` that git does not know is reported, never deleted.
 */
export function reconcileWorktrees(paths: StatePaths, logger: Logger): { unknown: string[] } {
  try {
    return reconcile(paths, logger);
  } catch (error) {
    // git failing here must not stop the daemon from starting: the worktrees stay as they are.
    logger.warn({ err: error }, 'could not reconcile the worktrees with git; they are left as they are');
    return { unknown: [] };
  }
}

function reconcile(paths: StatePaths, logger: Logger): { unknown: string[] } {
  const dir = path.join(paths.root, 'worktrees');
  const workspace = path.dirname(paths.root);
  if (!fs.existsSync(dir) || repoRoot(workspace) === null) return { unknown: [] };
  const pruned = git(workspace, ['worktree', 'prune', '--verbose']);
  for (const line of pruned.stdout.split('\n').concat(pruned.stderr.split('\n')).filter(Boolean)) {
    logger.info({ git: line }, 'git forgot a worktree whose folder is gone');
    recordWorktreeEvent(paths, 'pruned', { detail: line });
  }
  const known = gitWorktrees(workspace);
  const unknown = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !known.has(path.resolve(dir, entry.name)))
    .map((entry) => path.join(dir, entry.name));
  for (const folder of unknown) {
    logger.warn({ folder }, 'a folder in worktrees/ is not a worktree git knows: left as it is; move it aside or remove it by hand');
    recordWorktreeEvent(paths, 'unknown-folder', { path: folder });
  }
  return { unknown };
}
