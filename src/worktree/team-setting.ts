import path from 'node:path';
import { readConfig } from '../roster/roster.js';
import { statePaths } from '../paths.js';
import { currentHead, git, repoRoot } from './git.js';

/**
 * The worktree a new task gets from the team setting `"worktrees": "always"`: from the
 * workspace's current HEAD, where the workspace is a git repository with a commit; none otherwise.
 */
export function teamWorktree(stateDir: string): { base: string } | undefined {
  const paths = statePaths(stateDir);
  let setting: string;
  try {
    setting = readConfig(paths.config).settings.worktrees;
  } catch {
    return undefined;
  }
  const workspace = path.dirname(paths.root);
  if (setting !== 'always' || repoRoot(workspace) === null || git(workspace, ['rev-parse', '--verify', '--quiet', 'HEAD']).code !== 0) return undefined;
  return { base: currentHead(workspace) };
}

/**
 * The worktree a teammate or the lead asks for on a new task (create_task worktree: true):
 * from the workspace's current HEAD; an error saying why when the workspace cannot give one.
 */
export function askedWorktree(stateDir: string): { base: string } | { error: string } {
  const workspace = path.dirname(statePaths(stateDir).root);
  if (repoRoot(workspace) === null) return { error: `${workspace} is not a git repository: a task there cannot have a worktree` };
  if (git(workspace, ['rev-parse', '--verify', '--quiet', 'HEAD']).code !== 0) return { error: `${workspace} has no commit yet: a worktree starts from one` };
  return { base: currentHead(workspace) };
}
