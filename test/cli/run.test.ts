import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { collectOutput, REPO_ROOT, runTeamd, waitForLine } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { spawn, type ChildProcess } from 'node:child_process';

const goal = (text: string, plan: unknown) => `${text}\n\`\`\`teamd-plan\n${JSON.stringify(plan)}\n\`\`\`\n`;

async function workspace() {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  await startDaemon(dir);
  return { ws, dir, paths: statePaths(dir), board: openBoard(dir).board };
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** teamd run as a child process (for the runs a test must watch or interrupt). */
function startRun(dir: string, text: string, extra: string[] = []) {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/teamd'), 'run', '-', '--dir', dir, ...extra], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  child.stdin.end(text);
  return { child, done: collectOutput(child) };
}

describe('teamd run', () => {
  it('builds a project from one goal: the lead spawns the team, creates the tasks with their order, and reports; exit 0', async () => {
    const { ws, dir, board } = await workspace();
    const plan = {
      team: [
        { name: 'alice', role: 'coder' },
        { name: 'bob', role: 'coder' },
      ],
      tasks: [
        { id: 'a', subject: 'write a', sh: 'echo A > a.txt' },
        { id: 'b', subject: 'write b', sh: 'echo B > b.txt' },
        { id: 'c', subject: 'join them', sh: 'cat a.txt b.txt > c.txt', blockedBy: ['a', 'b'] },
      ],
    };
    const { done } = startRun(dir, goal('Make c.txt from a and b.', plan));
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(fs.readFileSync(path.join(ws, 'c.txt'), 'utf8')).toBe('A\nB\n');
    expect(result.stdout).toContain('task 3 created: join them (after 1, 2)');
    expect(result.stdout).toMatch(/task 3 completed by (alice|bob)/);
    expect(result.stdout).toContain('The lead reports:\nGoal done: all 3 tasks completed.');
    const tasks = board.list().tasks;
    expect(tasks.map((t) => [t.id, t.createdBy, t.status])).toEqual([
      [1, 'lead', 'completed'],
      [2, 'lead', 'completed'],
      [3, 'lead', 'completed'],
    ]);
    expect(member(dir, 'lead')).toMatchObject({ role: 'lead' });
  });

  it('a failed task: the lead names it in its report and run exits 1', async () => {
    const { dir } = await workspace();
    const plan = {
      team: [{ name: 'alice', role: 'coder' }],
      tasks: [
        { id: 'x', subject: 'breaks', sh: 'exit 3' },
        { id: 'y', subject: 'after it', sh: 'echo y', blockedBy: ['x'] },
      ],
    };
    const result = await startRun(dir, goal('Try.', plan)).done;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'Goal not done: 0 of 2 tasks completed; not completed:\ntask 1 (breaks): failed\ntask 2 (after it): pending, stuck behind a task that failed',
    );
    expect(result.stderr).toBe('teamd: the goal is not done: task 1 failed, task 2 pending\n');
  });

  it("answers a teammate's plan request for one of the goal's tasks", async () => {
    const { dir, paths } = await workspace();
    const plan = { team: [{ name: 'carol', role: 'coder', plan: true }], tasks: [{ id: 'p', subject: 'planned work', sh: 'echo planned' }] };
    const result = await startRun(dir, goal('Plan first.', plan)).done;
    expect(result.code, result.stderr).toBe(0);
    const answers = readInboxFrom(paths.inboxFile('carol'), 0)
      .messages.map((m) => m.message)
      .filter((m) => m.type === 'plan_approval_response');
    expect(answers).toEqual([expect.objectContaining({ from: 'lead', approve: true, content: 'It fits task 1 of the goal.' })]);
  });

  it('--queue: a second goal waits for the first; each run ends with the report on its own goal', async () => {
    const { ws, dir, board } = await workspace();
    const first = startRun(
      dir,
      goal('First.', { team: [{ name: 'alice', role: 'coder' }], tasks: [{ id: 'w', subject: 'wait for go', sh: 'while [ ! -f go ]; do sleep 0.05; done' }] }),
    );
    await waitFor(() => board.list().tasks.find((t) => t.status === 'in_progress'), 'the first goal under way');
    const second = startRun(dir, goal('Second.', { tasks: [{ id: 's', subject: 'second work', sh: 'echo second' }] }), ['--queue']);
    await waitForLine(second.child, /goal handed to the lead/);
    // The lead finishes the first goal before it starts on the second.
    expect(board.list().tasks.map((t) => t.subject)).toEqual(['wait for go']);
    fs.writeFileSync(path.join(ws, 'go'), '');
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('Goal done: all 1 tasks completed.\ntask 1 (wait for go): completed');
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('Goal done: all 1 tasks completed.\ntask 2 (second work): completed');
  });

  it('the lead killed -9 is restarted and goes on from its session: no task is created twice', async () => {
    const { ws, dir, board } = await workspace();
    const plan = {
      team: [{ name: 'alice', role: 'coder' }],
      tasks: [
        { id: 'w', subject: 'wait for go', sh: 'while [ ! -f go ]; do sleep 0.05; done' },
        { id: 'n', subject: 'next', sh: 'echo next', blockedBy: ['w'] },
      ],
    };
    const run = startRun(dir, goal('Wait, then go on.', plan));
    await waitFor(() => board.list().tasks.length === 2 && board.list().tasks.find((t) => t.status === 'in_progress'), 'both tasks, one claimed');
    const first = await waitFor(() => member(dir, 'lead')?.pid ?? undefined, "the lead's pid");
    process.kill(first, 'SIGKILL');
    await waitFor(() => {
      const lead = member(dir, 'lead');
      return lead?.pid && lead.pid !== first && lead.status === 'idle' ? lead : undefined;
    }, 'the lead restarted');
    fs.writeFileSync(path.join(ws, 'go'), '');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Goal done: all 2 tasks completed.');
    expect(board.list().tasks.map((t) => t.subject)).toEqual(['wait for go', 'next']);
    expect(member(dir, 'lead')!.restarts).toBeGreaterThanOrEqual(1);
  });

  it('a lead that ends its turn with words alone is reminded that the goal is open, and goes on: exit 0', async () => {
    const { dir, paths } = await workspace();
    fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ lead: [{ stopReason: 'end_turn', text: 'Sure, I will get right on it.' }] }));
    const plan = { team: [{ name: 'alice', role: 'coder' }], tasks: [{ id: 'a', subject: 'write a', sh: 'echo A' }] };
    const result = await startRun(dir, goal('Just a.', plan)).done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Goal done: all 1 tasks completed.');
    const session = fs.readFileSync(paths.sessionFile('lead'), 'utf8');
    expect(session.match(/\[teamd:stalled goal=/g)).toHaveLength(1);
  });

  it('a lead that keeps ending its turn with nothing under way: two reminders, then the person is told and run exits 1', async () => {
    const { dir, paths, board } = await workspace();
    fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ lead: [{ stopReason: 'end_turn', text: 'Thinking about it.', times: 3 }] }));
    const result = await startRun(dir, goal('Never started.', { tasks: [{ id: 'a', subject: 'a', sh: 'echo A' }] })).done;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'The lead reports:\nI stopped working on the goal without finishing it: I ended my turn 3 times with nothing under way for it (no task has been created for it). My last words were: "Thinking about it."',
    );
    expect(result.stderr).toBe('teamd: the goal is not done: the lead created no task\n');
    expect(board.list().tasks).toEqual([]);
    expect(fs.readFileSync(paths.sessionFile('lead'), 'utf8').match(/\[teamd:stalled goal=/g)).toHaveLength(2);
  });

  it("a lead whose model refuses the goal: the person gets the refusal (not the lead's own inbox) and run exits 1", async () => {
    const { dir, paths } = await workspace();
    fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ lead: [{ stopReason: 'refusal', text: 'I cannot help with that.' }] }));
    const result = await startRun(dir, goal('Refused.', { tasks: [{ id: 'a', subject: 'a', sh: 'echo A' }] })).done;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('lead: I could not answer: the model refused: I cannot help with that.');
    expect(result.stdout).toContain('The lead reports:\nI stopped working on the goal without finishing it: the model refused: I cannot help with that.');
    const toLead = readInboxFrom(paths.inboxFile('lead'), 0).messages.map((m) => m.message);
    expect(toLead.filter((m) => m.from === 'lead')).toEqual([]);
  });

  it('refuses an empty goal, a malformed plan (nothing created) and a second goal while one runs; Ctrl-C detaches and --attach follows again', async () => {
    const { ws, dir, board, paths } = await workspace();
    const empty = await runTeamd(['run', '  ', '--dir', dir]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the goal is empty');
    const malformed = await runTeamd(['run', goal('Bad.', { tasks: [{ id: 'x', subject: 's', blockedBy: ['nope'] }] }), '--dir', dir]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('"nope" is not the id of an earlier task');
    expect(malformed.stderr).toContain('nothing was created');
    expect(board.list().tasks).toEqual([]);
    expect(member(dir, 'lead')).toBeUndefined();

    const waits = { team: [{ name: 'alice', role: 'coder' }], tasks: [{ id: 'w', subject: 'wait for go', sh: 'while [ ! -f go ]; do sleep 0.05; done' }] };
    const first = startRun(dir, goal('Wait.', waits));
    await waitFor(() => board.list().tasks.find((t) => t.status === 'in_progress'), 'the task claimed');
    const second = await runTeamd(['run', 'another goal', '--dir', dir]);
    expect(second.code).toBe(4);
    expect(second.stderr).toContain('a goal is being run already: "Wait."');
    first.child.kill('SIGINT');
    const detached = await first.done;
    expect(detached.code).toBe(130);
    expect(detached.stderr).toContain('detached: the team works on; follow it again with teamd run --attach');
    const attached = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/teamd'), 'run', '--attach', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(attached);
    const output = collectOutput(attached);
    // Following before the task can end: the lead's report comes after this.
    await waitForLine(attached, /task 1 in_progress: wait for go/);
    fs.writeFileSync(path.join(ws, 'go'), '');
    const result = await output;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Goal done: all 1 tasks completed.');
    expect(fs.existsSync(paths.runGoal)).toBe(true);
    const none = await runTeamd(['run', '--attach', '--dir', dir]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no goal is being run');
  });
});
