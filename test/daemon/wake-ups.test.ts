import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLiveDaemon } from '../../src/proc/pid-file.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { LookMarker } from '../../src/store/files/look-marker.js';
import { openBoard } from '../helpers/board.js';
import { lastStopRungs, member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const NOOP = '```sh\ntrue\n```';
const stopped: number[] = [];
onBeforeTempRemoval(async () => {
  // A daemon left stopped by a failed test must be able to stop.
  for (const pid of stopped.splice(0)) {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone
    }
  }
});

async function idleTeam(names: string[], settings: Record<string, unknown> = {}) {
  const dir = path.join(makeTempDir(), '.team');
  const { board, paths } = openBoard(dir);
  await startDaemon(dir, { settings: { idleTimeoutMs: 0, ...settings } });
  for (const name of names) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
  await waitFor(() => names.every((name) => member(dir, name)?.status === 'idle'), 'the team idle');
  return { dir, board, paths };
}

/** How many lines of a teammate's log have a message starting with `msg`. */
function loggedLines(dir: string, name: string, msg: string): number {
  const log = statePaths(dir).logFile(name);
  return fs.existsSync(log)
    ? fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"msg":"${msg}`)).length
    : 0;
}

/** The "woke" lines a teammate logged: one per wake-up that was not a safety re-check. */
const wokeLines = (dir: string, name: string): number => loggedLines(dir, name, 'woke"');

const lead = (dir: string) => readInboxFrom(statePaths(dir).inboxFile('lead'), 0).messages.map((parsed) => parsed.message);

describe('targeted wake-ups', () => {
  it('a message to alice wakes alice, and not bob (wake counters in status --json, and the logs)', async () => {
    const { dir } = await idleTeam(['alice', 'bob']);
    const before = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { members: { name: string; wakes: number }[] };
    const wakesOf = (status: typeof before, name: string) => status.members.find((m) => m.name === name)!.wakes;
    expect((await runTeamd(['send', 'alice', 'hello alice', '--dir', dir])).code).toBe(0);
    await waitFor(() => lead(dir).find((m) => m.from === 'alice'), "alice's answer");
    await waitFor(() => member(dir, 'alice')?.status === 'idle', 'alice idle again');
    const after = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as typeof before;
    expect(wakesOf(after, 'alice')).toBe(wakesOf(before, 'alice') + 1);
    expect(wakesOf(after, 'bob')).toBe(wakesOf(before, 'bob'));
    expect(wokeLines(dir, 'bob')).toBe(0);
    expect(wokeLines(dir, 'alice')).toBe(1);
    // Watches in use: one per teammate (its inbox), three for the daemon (tasks/, inbox/, the state folder for cron.json).
    const { inotify } = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as {
      inotify: { watches: number; daemon: { watches: number }; members: Record<string, { watches: number }> };
    };
    expect(inotify.daemon.watches).toBe(3);
    expect(inotify.members).toEqual({ alice: { instances: 1, watches: 1 }, bob: { instances: 1, watches: 1 } });
    expect(inotify.watches).toBe(5);
  });

  it('one new ready task wakes one idle teammate, not the whole team', async () => {
    // No safety re-check during the test: one firing just before the daemon looked could claim the task unrung.
    const { dir, board } = await idleTeam(['alice', 'bob', 'carol'], { recheckMs: 3_600_000 });
    // Idle in the roster as soon as it is ready; its first look at the board comes just after.
    // One still to look would find the task unrung.
    const looked = (name: string) => loggedLines(dir, name, 'idle: ') > 0;
    await waitFor(() => ['alice', 'bob', 'carol'].every(looked) || null, 'every first look done');
    const task = await board.add({ subject: 'one task', description: NOOP });
    await waitFor(() => board.get(task.id).status === 'completed', 'the task done');
    const owner = board.get(task.id).owner!;
    await waitFor(() => member(dir, owner)?.status === 'idle', `${owner} idle again`);
    const woken = ['alice', 'bob', 'carol'].filter((name) => wokeLines(dir, name) > 0);
    expect(woken).toEqual([owner]);
    expect(member(dir, owner)?.wakes).toBe(1);
  });

  it('with the daemon not answering (SIGSTOP), a teammate still sees a new task, at the safety re-check at worst', async () => {
    const { dir, board } = await idleTeam(['alice'], { recheckMs: 300 });
    const daemon = readLiveDaemon(statePaths(dir))!;
    process.kill(daemon.pid, 'SIGSTOP');
    stopped.push(daemon.pid);
    try {
      // Added by the CLI, straight to the files: the daemon takes no part.
      expect((await runTeamd(['task', 'add', 'found without the daemon', '--description', NOOP, '--dir', dir])).code).toBe(0);
      // Claimed, though nobody rang: the data path does not go through the daemon. (Its offline
      // model is in the stopped daemon, so the work itself waits for it.)
      await waitFor(() => board.get(1).status === 'in_progress' && board.get(1).owner === 'alice', 'alice to claim the task');
      // status says the daemon does not answer, why, and what to do (not "running" alone).
      const status = await runTeamd(['status', '--dir', dir]);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`^daemon: running but NOT ANSWERING, pid ${daemon.pid}`));
      expect(status.stdout).toContain(`needs you:\n  - the daemon did not answer "ping" (it is stopped): its process (pid ${daemon.pid}) is stopped`);
      expect(status.stdout).toContain(`kill -CONT ${daemon.pid}`);
    } finally {
      process.kill(daemon.pid, 'SIGCONT');
    }
    await waitFor(() => board.get(1).status === 'completed', 'the task done once the daemon runs again');
  });

  it('with nothing changing, the daemon keeps looking at the board, so run/board-looked stays fresh and idle teammates need not scan it themselves', async () => {
    const { paths } = await idleTeam(['alice']);
    const looked = () => (fs.existsSync(paths.boardLooked) ? fs.statSync(paths.boardLooked).mtimeMs : 0);
    const first = await waitFor(() => looked() || null, 'the first look');
    // Without the daemon's periodic look the mark goes stale, and every teammate's safety re-check
    // reads the whole board again (each burst file once per teammate and re-check).
    await waitFor(() => looked() > first, 'the daemon to look again with nothing changed', 15_000);
    expect(new LookMarker(paths.boardLooked, paths.tasksDir).covers()).toBe(true);
  });

  it('a burst of 1,000 task files copied in: every teammate keeps answering, wakes for none of them, and teamd stop ends each on the first rung', async () => {
    const { dir, board, paths } = await idleTeam(['alice', 'bob', 'carol']);
    // A task held outside the team, and 1,000 that wait on it: as `cp` or `git checkout` would bring them.
    const now = new Date().toISOString();
    const held = { id: 1, subject: 'held elsewhere', description: '', status: 'in_progress', owner: 'gatekeeper', blockedBy: [], claim: 1, rev: 1 };
    const times = { createdAt: now, updatedAt: now, claimedAt: now, completedAt: null, result: null };
    const staged = path.join(makeTempDir(), 'burst');
    fs.mkdirSync(staged);
    fs.writeFileSync(path.join(staged, 'task_1.json'), JSON.stringify({ ...held, ...times }));
    for (let id = 2; id <= 1001; id++) {
      const task = { ...held, ...times, id, subject: `copied ${id}`, status: 'pending', owner: null, claim: 0, rev: 0, claimedAt: null, blockedBy: [1] };
      fs.writeFileSync(path.join(staged, `task_${id}.json`), JSON.stringify(task));
    }
    execFileSync('sh', ['-c', `cp ${staged}/* ${paths.tasksDir}/`]);
    // Every teammate answers a message during the aftermath of the burst.
    for (const name of ['alice', 'bob', 'carol']) expect((await runTeamd(['send', name, `still there, ${name}?`, '--dir', dir])).code).toBe(0);
    await waitFor(() => ['alice', 'bob', 'carol'].every((name) => lead(dir).some((m) => m.from === name)), 'an answer from each');
    await waitFor(() => ['alice', 'bob', 'carol'].every((name) => member(dir, name)?.status === 'idle'), 'the team idle');
    // Woken once each, for the message; never for the blocked tasks.
    for (const name of ['alice', 'bob', 'carol']) expect(member(dir, name)?.wakes).toBe(1);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(lastStopRungs(dir)).toEqual({ alice: 'ipc', bob: 'ipc', carol: 'ipc' });
    // Nothing was claimed or lost: the copied tasks are all there, waiting.
    expect(board.list({ status: 'pending' }).tasks).toHaveLength(1000);
  });
});
