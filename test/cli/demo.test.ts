import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/proc/pid-file.js';
import type { DemoSummary } from '../../src/demo/run-demo.js';
import type { WorktreeDemoSummary } from '../../src/demo/worktree-demo.js';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { processesRunning, TEAMD_BIN, runTeamd, waitForLine } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

describe('teamd demo', () => {
  it('a team of three builds, tests and packages the project offline, then leaves no process and no folder behind', async () => {
    const result = await runTeamd(['demo', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as DemoSummary;
    expect(summary.tasks).toHaveLength(6);
    expect(summary.tasks.every((t) => t.status === 'completed')).toBe(true);
    expect(summary.teammates.reduce((sum, t) => sum + t.tasksDone, 0)).toBe(6);
    expect(summary.reply).toBe('Got it: carol, are you with us?');
    expect(result.stderr).toMatch(/claimed #1 Scaffold the calc project/);
    // Each completion counted once, in order: never the same count twice.
    expect([...result.stderr.matchAll(/\[(\d)\/6 done\]/g)].map((match) => match[1])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(isAlive(summary.daemonPid)).toBe(false);
    expect(summary.teammatePids).toHaveLength(3);
    expect(summary.teammatePids.filter(isAlive)).toEqual([]);
    expect(fs.existsSync(summary.workspace)).toBe(false);
  });

  it('demo worktrees: two tasks change one file in their own worktrees; the first merges, the second conflicts and leaves the workspace clean', async () => {
    const result = await runTeamd(['demo', 'worktrees', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as WorktreeDemoSummary;
    expect(summary.tasks.map((t) => [t.branch, t.merge])).toEqual([
      ['teamd/first-greeting', 'merged'],
      ['teamd/second-greeting', 'conflict'],
    ]);
    expect(summary.tasks.every((t) => /^[0-9a-f]{40}$/.test(t.commit ?? ''))).toBe(true);
    expect(result.stderr).toMatch(/greeting\.txt in the workspace still says: hello\n/);
    expect(result.stderr).toMatch(/conflict in greeting\.txt; merge aborted, workspace clean \(git status: nothing to commit\)/);
    expect(fs.existsSync(summary.workspace)).toBe(false);
    expect((await runTeamd(['demo', 'rockets'])).stderr).toMatch(/there is no demo "rockets"/);
  });

  it('demo lead: the lead agent builds the project from one goal and reports; nothing is left running or on disk', async () => {
    const result = await runTeamd(['demo', 'lead']);
    expect(result.code, result.stderr).toBe(0);
    const workspace = /workspace (\S+): one goal for the lead agent/.exec(result.stdout)?.[1];
    expect(workspace).toBeDefined();
    expect(result.stdout).toContain('task 6 created: Package a release (after 5)');
    expect(result.stdout).toContain('The lead reports:\nGoal done: all 6 tasks completed.');
    expect(fs.existsSync(workspace!)).toBe(false);
    expect(processesRunning(workspace!)).toEqual([]);
  });

  it('--keep leaves the built workspace and the daemon for poking at', async () => {
    const result = await runTeamd(['demo', '--keep', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as DemoSummary;
    try {
      expect(isAlive(summary.daemonPid)).toBe(true);
      expect(fs.readdirSync(summary.workspace)).toContain('calc-1.0.0.tgz');
      expect(fs.readFileSync(path.join(summary.workspace, 'calc/src/calc.js'), 'utf8')).toContain('export const add');
      const status = JSON.parse((await runTeamd(['status', '--json', '--dir', summary.stateDir])).stdout);
      expect(status.tasks.completed).toBe(6);
    } finally {
      await runTeamd(['stop', '--dir', summary.stateDir]);
      await waitFor(() => !isAlive(summary.daemonPid), 'the kept daemon to stop');
      expect(summary.teammatePids.filter(isAlive)).toEqual([]);
      fs.rmSync(summary.workspace, { recursive: true, force: true });
    }
  });

  it('Ctrl-C in the middle stops the demo daemon and removes its workspace', async () => {
    const running = await demoUnderWay();
    running.demo.kill('SIGINT');
    expect(await running.exited).toBe(130);
    expect(isAlive(running.daemonPid)).toBe(false);
    expect(running.newWorkspaces()).toEqual([]);
    // A request the stopping daemon refused on the way out is part of ending, not an error to show.
    expect(running.stderr()).toBe('');
  });

  it('a reader that went away (teamd demo | head -3) ends the demo quietly, its daemon stopped and its workspace removed', async () => {
    const running = await demoUnderWay();
    // The reader closes its end: the demo's next line fails with EPIPE.
    running.demo.stdout.destroy();
    expect(await running.exited).toBe(0);
    expect(isAlive(running.daemonPid)).toBe(false);
    expect(running.newWorkspaces()).toEqual([]);
    expect(running.stderr()).toBe('');
  });
});

/** `teamd demo` started, once its daemon is up: its stderr so far, and the workspaces it made. */
async function demoUnderWay(): Promise<{
  demo: ChildProcessByStdio<null, Readable, Readable>;
  daemonPid: number;
  exited: Promise<number | null>;
  stderr: () => string;
  newWorkspaces: () => string[];
}> {
  const demos = (): string[] => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('teamd-demo-'));
  const before = new Set(demos());
  const demo = spawn(process.execPath, [TEAMD_BIN, 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  demo.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => demo.once('exit', resolve));
  const line = await waitForLine(demo, /daemon started \(pid \d+\)/);
  const daemonPid = Number(/pid (\d+)/.exec(line)![1]);
  expect(isAlive(daemonPid)).toBe(true);
  return { demo, daemonPid, exited, stderr: () => stderr, newWorkspaces: () => demos().filter((name) => !before.has(name)) };
}
