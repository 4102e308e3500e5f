import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/proc/pid-file.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const FAST_LADDER = { ipcGraceMs: 300, termGraceMs: 300 };

function stateDir(): string {
  return path.join(makeTempDir(), '.team');
}

function leadMessages(dir: string) {
  return readInboxFrom(statePaths(dir).inboxFile('lead'), 0).messages.map((m) => m.message);
}

async function spawn(dir: string, name: string): Promise<void> {
  const result = await runTeamd(['spawn', name, 'coder', '--dir', dir]);
  expect(result.code, result.stderr).toBe(0);
}

describe('supervising teammates', () => {
  it('shutdown: the teammate answers shutdown_response to the lead and exits; a second spawn of a running name is refused', async () => {
    const dir = stateDir();
    await startDaemon(dir);
    await spawn(dir, 'alice');
    const again = await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('already running');
    const pid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
    const result = await runTeamd(['shutdown', 'alice', '--dir', dir, '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ name: 'alice', rung: 'answered' });
    expect(isAlive(pid)).toBe(false);
    expect(member(dir, 'alice')).toMatchObject({ status: 'shutdown', pid: null });
    const response = leadMessages(dir).find((m) => m.type === 'shutdown_response');
    expect(response).toMatchObject({ from: 'alice', approve: true, requestId: expect.any(String) });
  });

  it('the ladder: a teammate that ignores IPC dies by SIGTERM; one that ignores SIGTERM too, by SIGKILL', async () => {
    const hangDir = stateDir();
    await startDaemon(hangDir, { worker: 'hang.mjs', settings: FAST_LADDER });
    await spawn(hangDir, 'hanger');
    await waitFor(() => member(hangDir, 'hanger')?.status === 'idle', 'hanger idle');
    expect(JSON.parse((await runTeamd(['shutdown', 'hanger', '--force', '--dir', hangDir, '--json'])).stdout).rung).toBe('sigterm');

    const stubbornDir = stateDir();
    await startDaemon(stubbornDir, { worker: 'ignore-sigterm.mjs', settings: FAST_LADDER });
    await spawn(stubbornDir, 'stubborn');
    const pid = await waitFor(() => member(stubbornDir, 'stubborn')?.status === 'idle' && member(stubbornDir, 'stubborn')?.pid, 'stubborn idle');
    expect(JSON.parse((await runTeamd(['shutdown', 'stubborn', '--dir', stubbornDir, '--json'])).stdout).rung).toBe('sigkill');
    expect(isAlive(pid)).toBe(false);
    expect(member(stubbornDir, 'stubborn')?.status).toBe('shutdown');
  });

  it('kill -9 of a teammate: restarted with a new process, counted, and the lead is told', async () => {
    const dir = stateDir();
    await startDaemon(dir);
    await spawn(dir, 'alice');
    const pid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
    process.kill(pid, 'SIGKILL');
    const next = await waitFor(() => {
      const m = member(dir, 'alice');
      return m?.status === 'idle' && m.pid !== pid && m.pid;
    }, 'alice restarted');
    expect(isAlive(next)).toBe(true);
    expect(member(dir, 'alice')).toMatchObject({ restarts: 1, lastExit: 'killed by SIGKILL' });
    expect(leadMessages(dir).find((m) => m.type === 'teammate_crashed')?.content).toMatch(/alice crashed \(killed by SIGKILL\); restarting/);
  });

  it('a teammate that keeps crashing on start is marked errored, its task released, the lead told', async () => {
    const dir = stateDir();
    const { board } = openBoard(dir);
    await board.add({ subject: 'fragile work' });
    await startDaemon(dir, { worker: 'claim-then-crash.mjs' });
    await spawn(dir, 'crashy');
    await waitFor(() => member(dir, 'crashy')?.status === 'errored', 'crashy errored');
    expect(member(dir, 'crashy')).toMatchObject({ pid: null, lastExit: 'exit code 4' });
    // Kept through the first crash; handed back at each later one (issue 47), and claimed again at the next start.
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null, claim: 5 });
    const notice = leadMessages(dir)
      .filter((m) => m.type === 'teammate_crashed')
      .at(-1);
    expect(notice?.content).toMatch(/crashy crashed 6 times in a row.*errored.*Task\(s\) 1 went back to the board/);
  });

  it('a crash-looping teammate hands its task back while it waits for its restart, and another teammate does it (issue 47)', async () => {
    const dir = stateDir();
    const { board } = openBoard(dir);
    await board.add({ subject: 'work', description: '```sh\necho done\n```' });
    await startDaemon(dir, { worker: 'crashy-beside-real.mjs' });
    await spawn(dir, 'crashy');
    await waitFor(() => fs.existsSync(path.join(dir, 'crashy-claimed')) || undefined, 'crashy claimed task 1');
    await spawn(dir, 'bob');
    await waitFor(() => board.get(1).status === 'completed', 'task 1 done');
    expect(board.get(1)).toMatchObject({ owner: 'bob', claim: 2 });
    // Released at crashy's second crash in a row, while it backed off — not when it was given up on.
    const releases = fs
      .readFileSync(statePaths(dir).logFile('daemon'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('task released back to the board'));
    expect(releases[0]).toMatch(/"why":"crashy crashed again; restarting in \d+ ms"/);
    const notices = leadMessages(dir).filter((m) => m.type === 'teammate_crashed');
    expect(notices[0]?.content).toMatch(/^crashy crashed \(exit code 4\); restarting in 100 ms\. Its task stays with it and is resumed\.$/);
    expect(notices[1]?.content).toMatch(/^crashy crashed \(exit code 4\); restarting in \d+ ms\. Task\(s\) 1 went back to the board meanwhile\.$/);
  });

  it('a normal exit (code 0) is not a crash: no restart, the member sleeps', async () => {
    const dir = stateDir();
    await startDaemon(dir, { worker: 'exit-zero.mjs' });
    await spawn(dir, 'quitter');
    await waitFor(() => member(dir, 'quitter')?.status === 'asleep', 'quitter asleep');
    expect(member(dir, 'quitter')).toMatchObject({ pid: null, restarts: 0 });
  });

  it('idle timeout puts a teammate to sleep; a message, and then a ready task, wake it', async () => {
    const dir = stateDir();
    await startDaemon(dir, { settings: { idleTimeoutMs: 300 } });
    await spawn(dir, 'sleepy');
    const first = await waitFor(() => member(dir, 'sleepy')?.pid, 'sleepy started');
    await waitFor(() => member(dir, 'sleepy')?.status === 'asleep', 'sleepy asleep');
    expect(isAlive(first)).toBe(false);
    await runTeamd(['send', 'sleepy', 'wake up', '--dir', dir]);
    await waitFor(() => member(dir, 'sleepy')?.pid && member(dir, 'sleepy')?.pid !== first, 'woken by a message');
    // The woken teammate consumed its message: its cursor moved past it.
    await waitFor(() => member(dir, 'sleepy')?.status === 'asleep', 'asleep again');
    expect((await runTeamd(['inbox', 'sleepy', '--unread', '--dir', dir, '--json'])).stdout.trim()).toBe('[]');
    const beforeTask = member(dir, 'sleepy')?.startedAt;
    await runTeamd(['task', 'add', 'work for a sleeper', '--dir', dir]);
    await waitFor(() => member(dir, 'sleepy')?.startedAt !== beforeTask && member(dir, 'sleepy')?.pid, 'woken by a ready task');
  });

  it("a task added while the daemon was down is handed out when it starts, before the board's first safety re-scan (issue 47)", async () => {
    const dir = stateDir();
    await startDaemon(dir, { settings: { idleTimeoutMs: 300 } });
    await spawn(dir, 'sleepy');
    await waitFor(() => member(dir, 'sleepy')?.status === 'asleep', 'sleepy asleep');
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    const { board } = openBoard(dir);
    await board.add({ subject: 'queued while down', description: '```sh\necho queued\n```' });
    const daemon = await startDaemon(dir);
    const claimed = await waitFor(() => board.get(1).claimedAt, 'the queued task claimed');
    // The bell's safety re-scan comes 5 s after start: a claim before it was handed out at start.
    expect(Date.parse(claimed) - Date.parse(daemon.startedAt)).toBeLessThan(5_000);
  });

  it('a shutdown carried out over IPC (the teammate was busy) leaves no request behind that a new process of the name obeys (issue 47)', async () => {
    const dir = stateDir();
    const ws = path.dirname(dir);
    const { board } = openBoard(dir);
    // bob is in the middle of a command when asked: he cannot read his inbox in time, and the ladder stops him over IPC.
    await board.add({ subject: 'busy', description: '```sh\ntouch busy; while [ ! -e go ]; do sleep 0.05; done\n```' });
    await startDaemon(dir, { settings: FAST_LADDER });
    await spawn(dir, 'bob');
    await waitFor(() => fs.existsSync(path.join(ws, 'busy')) || undefined, 'bob busy');
    expect((await runTeamd(['shutdown', 'bob', '--dir', dir])).code).toBe(0);
    await waitFor(() => member(dir, 'bob')?.status === 'shutdown' || undefined, 'bob shut down');
    fs.writeFileSync(path.join(ws, 'go'), '');
    await spawn(dir, 'bob');
    const log = () => fs.readFileSync(statePaths(dir).logFile('bob'), 'utf8');
    await waitFor(() => log().includes('ignored a shutdown request made to an earlier process') || undefined, 'the new bob read the old request');
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'the new bob works');
    expect(member(dir, 'bob')?.status).not.toBe('shutdown');
  });
});
