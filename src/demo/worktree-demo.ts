import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Board } from '../store/files/board.js';
import { requestDaemon } from '../daemon/control-client.js';
import { FileLocker } from '../fs/file-lock.js';
import { statePaths } from '../paths.js';
import { Doorbell } from '../watch/doorbell.js';
import { currentHead, gitOk } from '../worktree/git.js';
import { recordWorktreeEvent } from '../worktree/worktrees.js';
import { mergeBranch } from '../worktree/merge.js';
import type { DemoHooks } from './run-demo.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;
const DEMO_TIMEOUT_MS = 60_000;

export interface WorktreeDemoSummary {
  readonly workspace: string;
  readonly kept: boolean;
  readonly tasks: { id: number; owner: string | null; branch: string; commit: string | null; merge: string }[];
}

/**
 * Two teammates change the same file of a git project, each in its own worktree: neither
 * clobbers the other; the first branch merges (fast-forward), the second conflicts, and the
 * merge is aborted with the workspace left clean.
 */
export async function runWorktreeDemo(hooks: DemoHooks, keep: boolean): Promise<WorktreeDemoSummary> {
  const { show, logger } = hooks;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-demo-worktrees-'));
  const git = (...args: string[]): string => gitOk(workspace, ['-c', 'user.name=teamd demo', '-c', 'user.email=demo@localhost', ...args]);
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(workspace, 'greeting.txt'), 'hello\n');
  fs.writeFileSync(path.join(workspace, '.gitignore'), '.team/\n');
  git('add', '.');
  git('commit', '-q', '-m', 'a project with one file');
  const paths = statePaths(path.join(workspace, '.team'));
  fs.mkdirSync(paths.root, { mode: 0o700 });
  fs.writeFileSync(paths.config, `${JSON.stringify({ members: [], settings: { model: 'offline', idleTimeoutMs: 0, sandbox: 'preferred' } }, null, 2)}\n`);
  fs.writeFileSync(
    path.join(paths.root, 'settings.json'),
    `${JSON.stringify({ permissions: { allow: ['Bash(printf:*)', 'Bash(cat:*)'], defaultMode: 'default' } }, null, 2)}\n`,
  );
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  const base = currentHead(workspace);
  for (const [which, line] of [
    ['first', 'hello from the first task'],
    ['second', 'bonjour from the second task'],
  ] as const)
    await board.add({
      subject: `The ${which} greeting`,
      description: sh(`printf '${line}\\n' > greeting.txt`, 'cat greeting.txt'),
      worktree: { name: `${which}-greeting`, base },
    });
  show(`git workspace ${workspace}: two tasks change greeting.txt, each in its own worktree`);
  const daemon = await hooks.startDaemon(paths);
  const bell = await Doorbell.open({ dirs: [paths.tasksDir], logger });
  try {
    for (const name of ['alice', 'bob']) {
      await requestDaemon(paths, { op: 'spawn', name, role: 'coder' });
      show(`spawned ${name}`);
    }
    const deadline = Date.now() + DEMO_TIMEOUT_MS;
    while (!board.list().tasks.every((t) => t.status !== 'pending' && t.status !== 'in_progress' && t.worktree?.state !== 'active')) {
      if (Date.now() > deadline) throw new Error(`the demo's tasks did not finish within ${DEMO_TIMEOUT_MS / 1000} s`);
      await bell.wait();
    }
    const summary: WorktreeDemoSummary['tasks'][number][] = [];
    show(`greeting.txt in the workspace still says: ${fs.readFileSync(path.join(workspace, 'greeting.txt'), 'utf8').trim()}`);
    for (const task of board.list().tasks) {
      const worktree = task.worktree!;
      show(`task ${task.id} (${task.owner}): ${task.status}, ${worktree.branch} at ${worktree.commit?.slice(0, 12) ?? 'no commit'}`);
      const outcome = await mergeBranch(workspace, worktree.branch, worktree.base, `teamd: merge task ${task.id}: ${task.subject}`);
      if (outcome.kind === 'merged') {
        await board.setWorktree(task.id, (w) => ({ ...w, state: 'merged' }));
        recordWorktreeEvent(paths, 'merged', { taskId: task.id, branch: worktree.branch, commit: outcome.commit });
        show(
          `teamd merge ${task.id}: merged ${worktree.branch} (${outcome.fastForward ? 'fast-forward' : 'merge commit'}); greeting.txt now says: ${fs.readFileSync(path.join(workspace, 'greeting.txt'), 'utf8').trim()}`,
        );
      } else {
        await board.setWorktree(task.id, (w) => ({ ...w, state: 'needs-merge', conflicts: [...outcome.files] }));
        recordWorktreeEvent(paths, 'conflict', { taskId: task.id, branch: worktree.branch, files: outcome.files });
        show(
          `teamd merge ${task.id}: conflict in ${outcome.files.join(', ')}; merge aborted, workspace clean (git status: ${git('status', '--porcelain', '--untracked-files=no').trim() || 'nothing to commit'})`,
        );
      }
      summary.push({ id: task.id, owner: task.owner, branch: worktree.branch, commit: worktree.commit ?? null, merge: outcome.kind });
    }
    return { workspace, kept: keep, tasks: summary };
  } finally {
    await bell.close();
    if (!keep) {
      await hooks.stopDaemon(paths, daemon);
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }
}
