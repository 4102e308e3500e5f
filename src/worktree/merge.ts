import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TeamdError } from '../errors.js';
import { lazyBuiltin } from '../platform/lazy-builtin.js';
import { git, gitOk } from './git.js';

export type MergeOutcome =
  | { readonly kind: 'merged'; readonly commit: string; readonly fastForward: boolean; readonly already?: boolean }
  | { readonly kind: 'conflict'; readonly files: readonly string[] };

const IDENTITY = { GIT_AUTHOR_NAME: 'teamd', GIT_AUTHOR_EMAIL: 'teamd@localhost', GIT_COMMITTER_NAME: 'teamd', GIT_COMMITTER_EMAIL: 'teamd@localhost' };

/**
 * Merges a branch into the workspace's current branch, which must be `base` and clean, all or
 * nothing. The merge is computed away from the working tree (`git merge-tree --write-tree`, then
 * a merge commit made from its tree; a fast-forward needs neither), so a conflict touches
 * nothing. Then one `git merge --ff-only` to that commit moves the branch, the index and the
 * working tree; it runs in a session of its own with its output in a file, so a kill of
 * `teamd merge` or of its process group cannot stop it halfway. A branch already merged (a merge
 * whose command was killed after the move) is reported as merged again.
 */
export async function mergeBranch(workspace: string, branch: string, base: string, message: string): Promise<MergeOutcome> {
  const head = git(workspace, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (head.code === 0 && head.stdout.trim() !== base && !/^[0-9a-f]{40}$/.test(base))
    throw new TeamdError(
      'INVALID_TRANSITION',
      `the workspace is on ${head.stdout.trim()}, not on ${base}, the branch this task started from: check out ${base} first`,
    );
  refuseLeftoverLock(workspace);
  const dirty = gitOk(workspace, ['status', '--porcelain=v1', '--untracked-files=no']).trim();
  if (dirty) throw new TeamdError('INVALID_TRANSITION', `the workspace has uncommitted changes; commit or stash them first (nothing was merged):\n${dirty}`);
  const ours = gitOk(workspace, ['rev-parse', 'HEAD']).trim();
  const theirs = gitOk(workspace, ['rev-parse', '--verify', `${branch}^{commit}`]).trim();
  if (isAncestor(workspace, theirs, ours)) return { kind: 'merged', commit: ours, fastForward: ours === theirs, already: true };
  let target = theirs;
  const fastForward = isAncestor(workspace, ours, theirs);
  if (!fastForward) {
    const merged = git(workspace, ['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs]);
    const lines = merged.stdout.split('\n').filter(Boolean);
    // Exit 1 with the files named: a conflict. Anything else is git failing, in its own words.
    if (merged.code === 1 && lines.length > 1) return { kind: 'conflict', files: [...new Set(lines.slice(1))] };
    if (merged.code !== 0 || !/^[0-9a-f]{40,64}$/.test(lines[0] ?? ''))
      throw new TeamdError('IO', `git could not compute the merge of ${branch} into ${base} (nothing was changed): ${gitSays(merged.stderr || merged.stdout)}`);
    target = gitOk(workspace, [
      '-c',
      'user.name=teamd',
      '-c',
      'user.email=teamd@localhost',
      'commit-tree',
      lines[0]!,
      '-p',
      ours,
      '-p',
      theirs,
      '-m',
      message,
    ]).trim();
  }
  await moveTo(workspace, target, branch, base);
  return { kind: 'merged', commit: target, fastForward };
}

function isAncestor(workspace: string, ancestor: string, of: string): boolean {
  return git(workspace, ['merge-base', '--is-ancestor', ancestor, of]).code === 0;
}

/** `.git/index.lock`: another git command is at work there, or one died and left it. */
function refuseLeftoverLock(workspace: string): void {
  const lock = path.resolve(workspace, gitOk(workspace, ['rev-parse', '--git-path', 'index.lock']).trim());
  if (fs.existsSync(lock))
    throw new TeamdError(
      'INVALID_TRANSITION',
      `${lock} exists: a git command is running in ${workspace}, or one was killed and left it behind. If no git command runs there, remove it (rm ${lock}) and merge again; nothing was changed`,
    );
}

/** The one step that changes the workspace: a fast-forward to `target`, out of reach of signals meant for this process. */
async function moveTo(workspace: string, target: string, branch: string, base: string): Promise<void> {
  const errors = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-merge-')), 'stderr');
  const fd = fs.openSync(errors, 'w', 0o600);
  try {
    const child = lazyBuiltin.childProcess().spawn('git', ['merge', '--ff-only', '--quiet', target], {
      cwd: workspace,
      detached: true,
      stdio: ['ignore', 'ignore', fd],
      env: { ...process.env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0)
      throw new TeamdError(
        'INVALID_TRANSITION',
        `git could not move ${base} to the merge of ${branch} (nothing was changed): ${gitSays(fs.readFileSync(errors, 'utf8'))}`,
      );
  } finally {
    fs.closeSync(fd);
    fs.rmSync(path.dirname(errors), { recursive: true, force: true });
  }
}

/** git's message, on one line. */
function gitSays(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(0, 6)
      .join(' ') || 'no message'
  );
}
