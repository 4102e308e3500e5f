import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd, encoding: 'utf8' });

/** A git workspace with one commit: shared.txt says "base". */
function repo(): { ws: string; dir: string } {
  const ws = makeTempDir('teamd-git-');
  git(ws, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(ws, 'shared.txt'), 'base\n');
  git(ws, 'add', 'shared.txt');
  git(ws, 'commit', '-q', '-m', 'base');
  return { ws, dir: path.join(ws, '.team') };
}

async function addTask(dir: string, ...args: string[]): Promise<void> {
  const result = await runTeamd(['task', 'add', ...args, '--dir', dir]);
  expect(result.code, result.stderr).toBe(0);
}

describe('tasks in their own git worktrees (offline model, real git)', () => {
  it('two teammates write the same file in two worktrees without clobbering; merge fast-forwards the first and reports the second conflict, leaving the workspace clean', async () => {
    const { ws, dir } = repo();
    const { board } = openBoard(dir);
    await addTask(dir, 'alice edits shared', '--worktree', '--description', sh('echo alice-version > shared.txt'));
    await addTask(dir, 'bob edits shared', '--worktree', 'bob-branch', '--description', sh('echo bob-version > shared.txt'));
    await startDaemon(dir);
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(
      () => board.list().tasks.every((t) => t.status === 'completed' && t.worktree?.state === 'committed'),
      'both tasks completed and committed',
      60_000,
    );
    expect(fs.readFileSync(path.join(ws, 'shared.txt'), 'utf8')).toBe('base\n');
    const [one, two] = [board.get(1), board.get(2)];
    expect(one.worktree).toMatchObject({ name: '1-alice-edits-shared', branch: 'teamd/1-alice-edits-shared', base: 'main', state: 'committed' });
    expect(two.worktree).toMatchObject({ name: 'bob-branch', branch: 'teamd/bob-branch' });
    expect(git(ws, 'show', `${one.worktree!.branch}:shared.txt`)).toBe('alice-version\n');
    expect(git(ws, 'log', '-1', '--format=%H %s', one.worktree!.branch).trim()).toBe(`${one.worktree!.commit} teamd: task 1: alice edits shared`);
    expect(git(ws, 'show', `${two.worktree!.branch}:shared.txt`)).toBe('bob-version\n');

    const merged = await runTeamd(['merge', '1', '--dir', dir]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^merged teamd\/1-alice-edits-shared into main \(fast-forward [0-9a-f]{12}\)\n$/);
    expect(fs.readFileSync(path.join(ws, 'shared.txt'), 'utf8')).toBe('alice-version\n');
    const conflict = await runTeamd(['merge', '2', '--dir', dir]);
    expect(conflict.code).toBe(4);
    expect(conflict.stderr).toMatch(/conflicts in shared\.txt; nothing was merged and the workspace is as it was\. Task 2 is marked needs-merge/);
    expect(git(ws, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(fs.readFileSync(path.join(ws, 'shared.txt'), 'utf8')).toBe('alice-version\n');
    expect(board.get(2).worktree).toMatchObject({ state: 'needs-merge', conflicts: ['shared.txt'] });
    const events = fs
      .readFileSync(path.join(dir, 'worktrees', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: string; taskId: number }).event);
    expect(events).toEqual(expect.arrayContaining(['created', 'committed', 'merged', 'conflict']));
  });

  it('a task resumed after kill -9 continues in its worktree; remove refuses a dirty worktree without --force', async () => {
    const { ws, dir } = repo();
    const { board } = openBoard(dir);
    // In the workspace (bound into the sandbox, unlike the rest of /tmp), outside the worktree.
    const gate = path.join(ws, 'gate');
    fs.mkdirSync(gate);
    await addTask(
      dir,
      'slow work',
      '--worktree',
      'slow',
      '--description',
      sh('echo started >> run.log', `while [ -d ${gate} ]; do touch waiting; sleep 0.05; done`, 'echo finished > done.txt'),
    );
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const tree = path.join(dir, 'worktrees', 'slow');
    await waitFor(() => fs.existsSync(path.join(tree, 'waiting')), 'alice inside the slow command, in the worktree');
    const pid = member(dir, 'alice')!.pid!;
    process.kill(pid, 'SIGKILL');
    await waitFor(() => member(dir, 'alice')?.pid && member(dir, 'alice')?.pid !== pid, 'alice restarted');
    fs.rmdirSync(gate);
    await waitFor(() => board.get(1).status === 'completed', 'the task completed after the restart', 30_000);
    expect(fs.readFileSync(path.join(tree, 'run.log'), 'utf8')).toBe('started\n');
    expect(git(ws, 'show', 'teamd/slow:done.txt')).toBe('finished\n');
    expect(fs.existsSync(path.join(ws, 'done.txt'))).toBe(false);

    fs.writeFileSync(path.join(tree, 'scratch.txt'), 'not committed\n');
    const refused = await runTeamd(['worktree', 'remove', '1', '--dir', dir]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/has uncommitted changes \(scratch\.txt\); pass --force/);
    expect(fs.existsSync(tree)).toBe(true);
    const listed = await runTeamd(['worktree', 'list', '--dir', dir, '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ task: 1, branch: 'teamd/slow', state: 'committed', exists: true, dirty: true }]);
    expect((await runTeamd(['worktree', 'remove', '1', '--force', '--dir', dir])).code).toBe(0);
    expect(fs.existsSync(tree)).toBe(false);
    expect(git(ws, 'branch', '--list', 'teamd/slow').trim()).toBe('teamd/slow');
  });

  it('a workspace that is not a git repository refuses --worktree with a clear error; without it, tasks work as before', async () => {
    const ws = makeTempDir('teamd-plain-');
    const dir = path.join(ws, '.team');
    const refused = await runTeamd(['task', 'add', 'isolated', '--worktree', '--dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not a git repository: --worktree needs one \(git init there\), or leave --worktree out/);
    expect((await runTeamd(['task', 'add', 'plain', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['task', 'add', 'x', '--base', 'main', '--dir', dir])).stderr).toMatch(/--base goes with --worktree/);
  });

  it('the team setting worktrees "always" gives every added task a worktree (--no-worktree opts out); teamd start reports a folder git does not know and deletes nothing', async () => {
    const { dir } = repo();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ members: [], settings: { worktrees: 'always' } }));
    await addTask(dir, 'isolated by default');
    await addTask(dir, 'shared on purpose', '--no-worktree');
    const { board } = openBoard(dir);
    expect(board.get(1).worktree).toMatchObject({ name: '1-isolated-by-default', state: 'pending', base: 'main' });
    expect(board.get(2).worktree).toBeUndefined();
    const stray = path.join(dir, 'worktrees', 'stray');
    fs.mkdirSync(stray, { recursive: true });
    fs.writeFileSync(path.join(stray, 'notes.txt'), 'mine\n');
    await startDaemon(dir);
    const log = fs.readFileSync(path.join(dir, 'logs', 'daemon.log'), 'utf8');
    expect(log).toMatch(/a folder in worktrees\/ is not a worktree git knows: left as it is/);
    expect(fs.readFileSync(path.join(stray, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(fs.readFileSync(path.join(dir, 'worktrees', 'events.jsonl'), 'utf8')).toMatch(/"event":"unknown-folder"/);
  });

  it('the agent tools: create_worktree gives a pending task a worktree, its file tools write there, remove_worktree removes it (the branch stays)', async () => {
    const { ws, dir } = repo();
    const { board } = openBoard(dir);
    const calls = (value: unknown) => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;
    await board.add({ subject: 'plan the work', description: calls([{ name: 'create_worktree', input: { task_id: 2, name: 'tool-made' } }]) });
    await board.add({
      subject: 'write with a file tool',
      blockedBy: [1],
      description: calls([{ name: 'write_file', input: { path: 'from-tool.txt', content: 'hello\n' } }]),
    });
    await board.add({ subject: 'clean up', blockedBy: [2], description: calls([{ name: 'remove_worktree', input: { task_id: 2 } }]) });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.list().tasks.every((t) => t.status === 'completed' || t.status === 'failed'), 'all three tasks finished', 60_000);
    expect(board.list().tasks.map((t) => [t.id, t.status, t.result?.slice(0, 200)])).toEqual([
      [1, 'completed', expect.any(String)],
      [2, 'completed', expect.any(String)],
      [3, 'completed', expect.any(String)],
    ]);
    expect(board.get(2).worktree).toMatchObject({ name: 'tool-made', branch: 'teamd/tool-made', state: 'removed' });
    expect(git(ws, 'show', 'teamd/tool-made:from-tool.txt')).toBe('hello\n');
    expect(fs.existsSync(path.join(ws, 'from-tool.txt'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'worktrees', 'tool-made'))).toBe(false);
  });
});
