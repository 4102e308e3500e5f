import { TeamdError } from '../errors.js';
import { lazyBuiltin } from '../platform/lazy-builtin.js';

/** The longest a git command may take: a hung git (a lock, a hook waiting on a terminal) fails instead of blocking. */
const GIT_TIMEOUT_MS = 60_000;

export interface GitResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * git itself, run as a child process in `cwd` (never a re-implementation). No terminal prompts,
 * no pager, no user config that could change the output's shape.
 */
export function git(cwd: string, args: readonly string[]): GitResult {
  // child_process when git first runs: `teamd task list` imports this module and never runs git.
  const result = lazyBuiltin.childProcess().spawnSync('git', [...args], {
    cwd,
    encoding: 'utf8',
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
  });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TeamdError(
      'IO',
      missing ? 'git is not installed: install it to use worktrees (apt-get install -y git)' : `git ${args[0]} failed: ${result.error.message}`,
      {
        cause: result.error,
      },
    );
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Like git(), but a failure is an error saying which command failed and what git said. */
export function gitOk(cwd: string, args: readonly string[]): string {
  const result = git(cwd, args);
  if (result.code !== 0)
    throw new TeamdError('IO', `git ${args.join(' ')} failed in ${cwd}: ${(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ')}`);
  return result.stdout;
}

/** The top folder of the repository `dir` is in, or null when it is not in one. */
export function repoRoot(dir: string): string | null {
  const result = git(dir, ['rev-parse', '--show-toplevel']);
  return result.code === 0 ? result.stdout.trim() : null;
}

/** What HEAD is: its branch name when on a branch, else its commit. */
export function currentHead(dir: string): string {
  const branch = git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (branch.code === 0) return branch.stdout.trim();
  return gitOk(dir, ['rev-parse', 'HEAD']).trim();
}

/** Paths with changes not committed (porcelain v1), tracked or not. */
export function dirtyPaths(dir: string): string[] {
  return gitOk(dir, ['status', '--porcelain=v1', '--untracked-files=all'])
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(3));
}
