import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { processesRunning, runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd, encoding: 'utf8' });

/**
 * A workspace on main whose task 1 has a finished worktree branch, teamd/big, adding `files`
 * files; main moved on meanwhile unless `fastForward`. Returns main's commit before any merge.
 */
async function bigBranch(files: number, fastForward = false): Promise<{ ws: string; dir: string; old: string; tip: string }> {
  const ws = makeTempDir('teamd-merge-');
  const dir = path.join(ws, '.team');
  git(ws, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(ws, '.gitignore'), '.team/\n');
  fs.writeFileSync(path.join(ws, 'shared.txt'), 'base\n');
  git(ws, 'add', '.');
  git(ws, 'commit', '-q', '-m', 'base');
  const added = await runTeamd(['task', 'add', 'big change', '--worktree', 'big', '--dir', dir]);
  expect(added.code, added.stderr).toBe(0);
  git(ws, 'checkout', '-q', '-b', 'teamd/big');
  fs.mkdirSync(path.join(ws, 'big'));
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(ws, 'big', `file-${i}.txt`), `${'content '.repeat(20)}${i}\n`);
  git(ws, 'add', '.');
  git(ws, 'commit', '-q', '-m', 'big');
  const tip = git(ws, 'rev-parse', 'HEAD').trim();
  git(ws, 'checkout', '-q', 'main');
  if (!fastForward) {
    fs.writeFileSync(path.join(ws, 'other.txt'), 'main moved on\n');
    git(ws, 'add', 'other.txt');
    git(ws, 'commit', '-q', '-m', 'main moved on');
  }
  const { board } = openBoard(dir);
  await board.setWorktree(1, (w) => ({ ...w, state: 'committed', commit: tip }));
  return { ws, dir, old: git(ws, 'rev-parse', 'HEAD').trim(), tip };
}

/** What git shows as changed or untracked (the state folder is ignored). */
const changes = (ws: string): string => git(ws, 'status', '--porcelain=v1', '--untracked-files=all');

describe('teamd merge: all or nothing', () => {
  it('killed with its process group at random moments (20 runs), it leaves main either untouched or merged, and the workspace clean', async () => {
    const { ws, dir, old, tip } = await bigBranch(2000);
    const { board } = openBoard(dir);
    const outcomes = { untouched: 0, merged: 0 };
    for (let run = 0; run < 20; run++) {
      const merge = spawn(process.execPath, [TEAMD_BIN, 'merge', '1', '--dir', dir], { detached: true, stdio: 'ignore' });
      const exited = new Promise((resolve) => merge.once('close', resolve));
      // The fault: a kill of the command and everything in its group, at any moment of its run.
      setTimeout(() => {
        try {
          process.kill(-merge.pid!, 'SIGKILL');
        } catch {
          // it had finished
        }
      }, Math.random() * 700);
      await exited;
      // Whatever git the merge had started finishes on its own: wait for it, then look.
      await waitFor(() => processesRunning('merge --ff-only').length === 0 || null, 'the move of main to end');
      const head = git(ws, 'rev-parse', 'HEAD').trim();
      expect(changes(ws), `run ${run}: the workspace is clean`).toBe('');
      expect(fs.existsSync(path.join(ws, '.git', 'index.lock')), `run ${run}: no index.lock left`).toBe(false);
      if (head === old) {
        outcomes.untouched++;
        expect(fs.existsSync(path.join(ws, 'big'))).toBe(false);
      } else {
        outcomes.merged++;
        expect(git(ws, 'rev-list', '--parents', '-n', '1', head).trim().split(' ').slice(1), `run ${run}: a merge of main and the branch`).toEqual([old, tip]);
        expect(fs.readdirSync(path.join(ws, 'big'))).toHaveLength(2000);
        // Back to the start for the next run.
        git(ws, 'reset', '-q', '--hard', old);
        await board.setWorktree(1, (w) => ({ ...w, state: 'committed' }));
      }
    }
    expect(outcomes.untouched + outcomes.merged).toBe(20);
    // Killed after the move but before the task was marked: merging again reports it merged.
    const merged = await runTeamd(['merge', '1', '--dir', dir]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(board.get(1).worktree).toMatchObject({ state: 'merged' });
    expect(changes(ws)).toBe('');
  }, 180_000);

  it('an untracked file in the way and a leftover index.lock each get their own message, change nothing, and leave the task as it was', async () => {
    const { ws, dir, old } = await bigBranch(20, true);
    const { board } = openBoard(dir);
    fs.mkdirSync(path.join(ws, 'big'));
    fs.writeFileSync(path.join(ws, 'big', 'file-3.txt'), 'mine, not committed\n');
    const inTheWay = await runTeamd(['merge', '1', '--dir', dir]);
    expect(inTheWay.code).toBe(4);
    expect(inTheWay.stderr).toContain('nothing was changed');
    expect(inTheWay.stderr).toContain('untracked working tree files would be overwritten');
    expect(inTheWay.stderr).toContain('big/file-3.txt');
    expect(inTheWay.stderr).not.toContain('conflicts in');
    expect(inTheWay.stderr.trim().split('\n')).toHaveLength(1);
    expect(git(ws, 'rev-parse', 'HEAD').trim()).toBe(old);
    expect(fs.readFileSync(path.join(ws, 'big', 'file-3.txt'), 'utf8')).toBe('mine, not committed\n');
    expect(board.get(1).worktree).toMatchObject({ state: 'committed' });
    fs.rmSync(path.join(ws, 'big'), { recursive: true });

    const lock = path.join(ws, '.git', 'index.lock');
    fs.writeFileSync(lock, '');
    const locked = await runTeamd(['merge', '1', '--dir', dir]);
    expect(locked.code).toBe(4);
    expect(locked.stderr).toContain(`${lock} exists`);
    expect(locked.stderr).toContain(`rm ${lock}`);
    expect(locked.stderr).not.toContain('conflicts in');
    expect(git(ws, 'rev-parse', 'HEAD').trim()).toBe(old);
    expect(board.get(1).worktree).toMatchObject({ state: 'committed' });
    fs.rmSync(lock);

    const merged = await runTeamd(['merge', '1', '--dir', dir, '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({ task: 1, fastForward: true });
    expect(changes(ws)).toBe('');
  });
});
