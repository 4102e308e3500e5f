import fs from 'node:fs';
import path from 'node:path';
import { TeamdError } from '../errors.js';
import { appendRecordSync } from '../fs/append-record.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import type { StatePaths } from '../paths.js';
import type { TaskWorktree } from '../contracts/task.js';
import { dirtyPaths, git, gitOk } from './git.js';
import { isoTime } from '../platform/iso-time.js';

export type WorktreeEvent = 'created' | 'bound' | 'committed' | 'merged' | 'conflict' | 'removed' | 'kept' | 'pruned' | 'unknown-folder';

/** Where a task's worktree lives: `<state>/worktrees/<name>`. */
export function worktreePath(paths: StatePaths, name: string): string {
  return path.join(paths.root, 'worktrees', name);
}

/** One line per event in `<state>/worktrees/events.jsonl`, appended whole (tail -f it). */
export function recordWorktreeEvent(paths: StatePaths, event: WorktreeEvent, fields: Record<string, unknown>): void {
  const dir = path.join(paths.root, 'worktrees');
  ensurePrivateDir(dir);
  appendRecordSync(path.join(dir, 'events.jsonl'), `${JSON.stringify({ time: isoTime(), event, ...fields })}\n`, { durable: false });
}

/** The worktrees git knows for the repository at `workspace`: path -> branch (or null when detached). */
export function gitWorktrees(workspace: string): Map<string, string | null> {
  const known = new Map<string, string | null>();
  let current: string | null = null;
  for (const line of gitOk(workspace, ['worktree', 'list', '--porcelain']).split('\n')) {
    if (line.startsWith('worktree ')) {
      current = path.resolve(line.slice('worktree '.length));
      known.set(current, null);
    } else if (line.startsWith('branch ') && current) known.set(current, line.slice('branch refs/heads/'.length));
  }
  return known;
}

/**
 * The task's worktree, made if it is not there yet: `git worktree add -b <branch> <path> <base>`,
 * or onto the existing branch when an earlier worktree of the task was removed. A worktree that
 * exists is used as it is (a resumed task finds its work again).
 */
export function ensureWorktree(workspace: string, paths: StatePaths, worktree: TaskWorktree): { path: string; created: boolean } {
  const where = worktreePath(paths, worktree.name);
  if (gitWorktrees(workspace).has(path.resolve(where))) return { path: where, created: false };
  if (fs.existsSync(where))
    throw new TeamdError('IO', `${where} exists but git does not know it as a worktree: move it aside (nothing was deleted), then retry`);
  ensurePrivateDir(path.dirname(where));
  const branchExists = git(workspace, ['rev-parse', '--verify', '--quiet', `refs/heads/${worktree.branch}`]).code === 0;
  gitOk(workspace, branchExists ? ['worktree', 'add', where, worktree.branch] : ['worktree', 'add', '-b', worktree.branch, where, worktree.base]);
  return { path: where, created: true };
}

/** Commits everything changed in a worktree; null when nothing changed (no empty commit). */
export function commitWorktree(where: string, message: string, author: string): string | null {
  gitOk(where, ['add', '-A']);
  if (git(where, ['diff', '--cached', '--quiet']).code === 0) return null;
  gitOk(where, ['-c', `user.name=${author}`, '-c', 'user.email=teamd@localhost', 'commit', '--no-verify', '-q', '-m', message]);
  return gitOk(where, ['rev-parse', 'HEAD']).trim();
}

/** Removes a worktree folder (its branch stays); one with uncommitted changes only with force. */
export function removeWorktree(workspace: string, where: string, force: boolean): void {
  if (!force && fs.existsSync(where)) {
    const dirty = dirtyPaths(where);
    if (dirty.length > 0)
      throw new TeamdError(
        'INVALID_TRANSITION',
        `${where} has uncommitted changes (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}); pass --force to remove it anyway`,
      );
  }
  gitOk(workspace, ['worktree', 'remove', ...(force ? ['--force'] : []), where]);
}
