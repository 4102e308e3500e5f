import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { readConfig } from '../../src/roster/roster.js';
import { isAlive, readLiveDaemon } from '../../src/proc/pid-file.js';
import { createLogger } from '../../src/log/logger.js';
import { PgBoard } from '../../src/store/postgres/pg-board.js';
import { migrate } from '../../src/store/postgres/schema.js';
import { startDaemon } from '../helpers/daemon.js';
import { collectOutput, processesRunning, runTeamd, startFixture } from '../helpers/processes.js';
import { savedMessages } from '../helpers/session.js';
import { beforeThisTestsFoldersGo, makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitForAsync } from '../helpers/wait.js';

const url = inject('pgUrl');

/** One host's workspace and state folder, on the shared store under one team name. */
function host(team: string, name: string): string {
  const dir = path.join(makeTempDir(`teamd-${name}-`), 'ws', '.team');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(statePaths(dir).config, JSON.stringify({ members: [], settings: { store: url, team, host: name, hostLeaseMs: 2000, idleTimeoutMs: 0 } }));
  return dir;
}

async function teamd(dir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runTeamd([...args, '--dir', dir]);
}

async function json<T>(dir: string, ...args: string[]): Promise<T> {
  const result = await teamd(dir, ...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

describe.skipIf(url === null)('one team on two hosts (two daemons on one PostgreSQL store)', () => {
  it('share a board and mailboxes; kill -9 of one host gives its tasks to the other within the lease, and its late finish is refused', async () => {
    const team = `two-${randomUUID().slice(0, 6)}`;
    const h1 = host(team, 'h1');
    const h2 = host(team, 'h2');
    await startDaemon(h1);
    await startDaemon(h2);
    expect((await teamd(h1, 'spawn', 'alice', 'coder')).code).toBe(0);
    // A name is the team's: another host cannot take it.
    const taken = await teamd(h2, 'spawn', 'alice', 'coder');
    expect(taken.code).toBe(4);
    expect(taken.stderr).toContain('alice is a member on the host h1');
    // Hangs on h1, finishes on h2: each host runs its commands in its own workspace.
    const sh = 'case "$PWD" in *teamd-h1-*) sleep 600;; esac; echo done-on-h2';
    const added = await json<{ id: number }>(h2, 'task', 'add', 'where am I', '--description', `\`\`\`sh\n${sh}\n\`\`\``);
    const held = await waitForAsync(async () => {
      const task = await json<{ status: string; owner: string | null; claim: number }>(h1, 'task', 'show', String(added.id));
      return task.status === 'in_progress' && task.owner === 'alice' ? task : null;
    }, 'alice on h1 to claim the task');
    expect(held.claim).toBe(1);

    // bob on h2 gets a message from alice's host and reads it.
    expect((await teamd(h2, 'spawn', 'bob', 'coder')).code).toBe(0);
    // The roster is the team's: each host lists the other's members, and leaves their pids and their stopping to their host.
    const roster = await json<{ name: string; host?: string | null; pid: number | null }[]>(h2, 'team');
    expect(roster.find((m) => m.name === 'alice')).toMatchObject({ host: 'h1', pid: null });
    // A command on one host for the other's daemon, through the store: spawn carol on h1 from h2, then stop her from h2.
    const carol = await json<{ name: string; pid: number }>(h2, 'spawn', 'carol', 'tester', '--host', 'h1');
    expect(carol.name).toBe('carol');
    expect(readConfig(statePaths(h1).config).members.find((m) => m.name === 'carol')).toMatchObject({ role: 'tester', pid: carol.pid });
    expect(isAlive(carol.pid)).toBe(true);
    const stopped = await json<{ rung: string }>(h2, 'shutdown', 'carol');
    expect(stopped.rung).toEqual(expect.any(String));
    await waitForAsync(async () => !isAlive(carol.pid), 'carol to stop on h1');
    expect(readConfig(statePaths(h1).config).members.find((m) => m.name === 'carol')?.status).toBe('shutdown');
    const nowhere = await teamd(h2, 'spawn', 'dave', 'coder', '--host', 'h9');
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('no daemon runs on the host h9');
    const sent = await json<{ id: string; to: string }>(h1, 'send', 'bob', 'hello from h1', '--from', 'alice');
    expect(sent.to).toBe('bob');
    const client = new pg.Client({ connectionString: url! });
    await client.connect();
    onBeforeTempRemoval(() => client.end().catch(() => undefined));
    await waitForAsync(async () => {
      const cursor = await client.query<{ last_id: string }>('SELECT last_id FROM teamd_cursors WHERE team = $1 AND consumer = $2', [team, 'bob']);
      return cursor.rows[0]?.last_id === sent.id;
    }, 'bob to read the message from h1');

    // Host h1 dies: its daemon and its teammate, with no chance to clean up.
    const daemon1 = readLiveDaemon(statePaths(h1))!;
    const alice = readConfig(statePaths(h1).config).members.find((m) => m.name === 'alice')!.pid!;
    process.kill(daemon1.pid, 'SIGKILL');
    process.kill(alice, 'SIGKILL');
    await waitForAsync(async () => !isAlive(daemon1.pid) && !isAlive(alice), 'h1 to be gone');

    // Within the lease (2 s, beats every 0.67 s), h2 gives the task back; bob takes it and finishes it.
    const done = await waitForAsync(
      async () => {
        const task = await json<{ status: string; owner: string | null; claim: number; result: string | null }>(h2, 'task', 'show', String(added.id));
        return task.status === 'completed' ? task : null;
      },
      'the task to be finished on h2',
      20_000,
    );
    expect(done).toMatchObject({ owner: 'bob', claim: 2 });
    expect(done.result).toContain('done-on-h2');
    const status = await json<{ members: { name: string; status: string; host?: string }[]; store: { hosts: { host: string; lost: boolean }[] } }>(
      h2,
      'status',
    );
    expect(status.members.find((m) => m.name === 'alice')).toMatchObject({ status: 'lost', host: 'h1' });
    expect(status.store.hosts).toEqual(
      expect.arrayContaining([expect.objectContaining({ host: 'h1', lost: true }), expect.objectContaining({ host: 'h2', lost: false })]),
    );
    const lead = await json<{ type: string; content: string }[]>(h2, 'inbox', 'lead');
    expect(lead.some((m) => m.type === 'teammate_crashed' && m.content.includes('alice is lost') && m.content.includes(`Task(s) ${added.id}`))).toBe(true);
    // h1 comes back late and tries to finish with its old claim: fenced off.
    const late = await teamd(h1, 'task', 'done', String(added.id), '--owner', 'alice', '--claim', '1');
    expect(late.code).toBe(4);
    // The surviving host stops cleanly: nothing of its store connections keeps it alive.
    const stop = await teamd(h2, 'stop');
    expect(stop.code, stop.stderr).toBe(0);
  });

  it('a host counted lost comes back: its teammate stops at once the work on a task that went to another host (its command ended, its calls answered)', async () => {
    const team = `back-${randomUUID().slice(0, 6)}`;
    const h1 = host(team, 'h1');
    const h2 = host(team, 'h2');
    await startDaemon(h1);
    await startDaemon(h2);
    expect((await teamd(h1, 'spawn', 'alice', 'coder')).code).toBe(0);
    // Runs for ten minutes on h1, finishes at once on h2.
    const sh = 'case "$PWD" in *teamd-h1-*) exec sleep 613;; esac; echo done-on-h2';
    const added = await json<{ id: number }>(h2, 'task', 'add', 'long on h1', '--description', `\`\`\`sh\n${sh}\n\`\`\``);
    await waitForAsync(async () => processesRunning('sleep 613').length > 0 || null, "alice's command running on h1");
    // h1's daemon stops answering (paused) past its lease: h2 counts it lost, gives the task back, and bob (on h2) does it.
    const daemon1 = readLiveDaemon(statePaths(h1))!;
    process.kill(daemon1.pid, 'SIGSTOP');
    // Before the daemons are stopped (a stopped one would not answer).
    beforeThisTestsFoldersGo(async () => {
      if (isAlive(daemon1.pid)) process.kill(daemon1.pid, 'SIGCONT');
    });
    expect((await teamd(h2, 'spawn', 'bob', 'coder')).code).toBe(0);
    const done = await waitForAsync(
      async () => {
        const task = await json<{ status: string; owner: string | null; claim: number }>(h2, 'task', 'show', String(added.id));
        return task.status === 'completed' ? task : null;
      },
      'bob on h2 to do the task',
      30_000,
    );
    expect(done).toMatchObject({ owner: 'bob', claim: 2 });
    // Meanwhile alice, whose process never stopped, still works on it.
    expect(processesRunning('sleep 613').length).toBeGreaterThan(0);
    process.kill(daemon1.pid, 'SIGCONT');
    // Its first beat back finds h1 counted lost: alice looks, her command ends, and she leaves the task.
    await waitForAsync(async () => processesRunning('sleep 613').length === 0 || null, "alice's command ended", 20_000);
    const paths1 = statePaths(h1);
    await waitForAsync(async () => {
      const alice = readConfig(paths1.config).members.find((m) => m.name === 'alice');
      return alice?.status === 'idle' && alice.task === null ? alice : null;
    }, 'alice idle, without the task');
    expect(fs.readFileSync(paths1.logFile('alice'), 'utf8')).toContain('stopping work on it');
    // Her conversation stays whole: the cut-short call answered, then told the task is no longer hers.
    const messages = savedMessages(paths1.sessionFile('alice'));
    const calls = messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
    const answered = new Set(messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))));
    expect(calls.filter((id) => !answered.has(id))).toEqual([]);
    const texts = messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
    const results = messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_result' && typeof b.content !== 'string' ? b.content : [])));
    expect(results.some((b) => b.text.startsWith(`killed: task ${added.id} is no longer yours`))).toBe(true);
    expect([...texts, ...results.map((b) => b.text)].some((text) => text.startsWith(`[teamd:released task=${added.id}]`))).toBe(true);
    // bob's result stands, reported once, by bob.
    const after = await json<{ status: string; owner: string | null; claim: number }>(h2, 'task', 'show', String(added.id));
    expect(after).toMatchObject({ status: 'completed', owner: 'bob', claim: 2 });
    const lead = await json<{ type: string; from: string; taskId?: number }[]>(h2, 'inbox', 'lead');
    expect(lead.filter((m) => m.type === 'task_completed' && m.taskId === added.id).map((m) => m.from)).toEqual(['bob']);
  }, 120_000);

  it('8 teammates on two daemons (4 on each host) work 1,000 tasks: each claimed once, all completed', async () => {
    const team = `busy-${randomUUID().slice(0, 6)}`;
    const h1 = host(team, 'h1');
    const h2 = host(team, 'h2');
    await startDaemon(h1);
    await startDaemon(h2);
    const pool = new pg.Pool({ connectionString: url!, max: 2 });
    onBeforeTempRemoval(() => pool.end().catch(() => undefined));
    const board = new PgBoard({ pool, team, logger: createLogger() });
    // Added before anyone works: every teammate races for every task from the start.
    // No command in them: the teammate claims, completes and reports each (a command would add only its sandbox's start-up).
    for (let i = 0; i < 1000; i++) await board.add({ subject: `t${i + 1}` });
    for (const [dir, names] of [
      [h1, ['a1', 'a2', 'a3', 'a4']],
      [h2, ['b1', 'b2', 'b3', 'b4']],
    ] as const)
      for (const name of names) {
        const spawned = await teamd(dir, 'spawn', name, 'coder');
        expect(spawned.code, spawned.stderr).toBe(0);
      }
    const tasks = await waitForAsync(
      async () => {
        const listing = await board.list({ status: 'completed' });
        return listing.tasks.length === 1000 ? listing.tasks : null;
      },
      'the 1,000 tasks completed',
      240_000,
    );
    // Claimed once each: nobody took a task another held (a second claim would have bumped the number).
    expect(tasks.filter((task) => task.claim !== 1)).toEqual([]);
    const owners = new Set(tasks.map((task) => task.owner));
    expect([...owners].some((owner) => owner!.startsWith('a')) && [...owners].some((owner) => owner!.startsWith('b'))).toBe(true);
    // Each teammate reports a task after it marks it completed: the last report may still be on its way.
    const reported = async () =>
      (
        await pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM teamd_messages WHERE team = $1 AND recipient = 'lead' AND data->>'type' = 'task_completed'",
          [team],
        )
      ).rows[0]!.n;
    await waitForAsync(async () => (await reported()) >= 1000, 'a report of each task to the lead', 30_000);
    expect(await reported()).toBe(1000);
  }, 300_000);

  it('8 processes racing claim-next over 1,000 tasks of one team claim every task exactly once', async () => {
    const team = `race-${randomUUID().slice(0, 6)}`;
    const pool = new pg.Pool({ connectionString: url!, max: 2 });
    onBeforeTempRemoval(() => pool.end().catch(() => undefined));
    await migrate(pool);
    const board = new PgBoard({ pool, team, logger: createLogger() });
    for (let i = 0; i < 1000; i++) await board.add({ subject: `t${i + 1}` });
    const runs = Array.from({ length: 8 }, (_, i) =>
      collectOutput(startFixture('pg-claim-racer.mjs', [url!, team, `racer-${i}`])).then((out) => ({ owner: `racer-${i}`, out })),
    );
    const claims = new Map<number, string[]>();
    for (const { owner, out } of await Promise.all(runs)) {
      expect(out.code, out.stderr).toBe(0);
      for (const match of out.stdout.matchAll(/^claimed (\d+) (\d+)$/gm)) claims.set(Number(match[1]), [...(claims.get(Number(match[1])) ?? []), owner]);
    }
    expect(claims.size).toBe(1000);
    expect([...claims].filter(([, owners]) => owners.length !== 1)).toEqual([]);
    expect(new Set([...claims.values()].map(([owner]) => owner)).size).toBeGreaterThan(1);
  });
});
