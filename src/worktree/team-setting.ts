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
