import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isAlive, readLiveDaemon } from '../../src/proc/pid-file.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { livePids, member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

function stateDir(): string {
  return path.join(makeTempDir(), '.team');
}

describe('teamd start / stop', () => {
  it('starts one daemon per state folder; a second start names the running pid', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir);
    expect(isAlive(info.pid)).toBe(true);
    const socketMode = fs.statSync(statePaths(dir).daemonSocket).mode & 0o777;
    expect(socketMode).toBe(0o600);
    const second = await runTeamd(['start', '--dir', dir]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`pid ${info.pid}`);
    const status = JSON.parse((await runTeamd(['status', '--dir', dir, '--json'])).stdout);
    expect(status).toMatchObject({ daemon: { pid: info.pid, dir }, members: [], tasks: { pending: 0, in_progress: 0 } });
    const stopped = await runTeamd(['stop', '--dir', dir]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(isAlive(info.pid)).toBe(false);
    expect(fs.existsSync(statePaths(dir).daemonPid)).toBe(false);
    expect(fs.existsSync(statePaths(dir).daemonSocket)).toBe(false);
  });

  it("the lead's inbox is there from the start and a member's from its spawn: tail -f can follow them before the first message", async () => {
    const dir = stateDir();
    await startDaemon(dir);
    const paths = statePaths(dir);
    expect(fs.statSync(paths.inboxFile('lead'))).toMatchObject({ size: 0, mode: expect.any(Number) });
    expect(fs.statSync(paths.inboxFile('lead')).mode & 0o777).toBe(0o600);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    expect(fs.statSync(paths.inboxFile('alice')).size).toBe(0);
    const tail = spawnSync('tail', ['-n', '5', paths.inboxFile('lead'), paths.inboxFile('alice')]);
    expect(tail.status).toBe(0);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it.skipIf(process.getuid?.() !== 0)('teamd stop by another user says the daemon is not theirs to see, not that none runs (exit 1)', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir);
    // The workspace may be passed through; the state folder is the owner's alone (0700).
    fs.chmodSync(path.dirname(dir), 0o711);
    const other = await runTeamd(['stop', '--dir', dir], { uid: 65534, gid: 65534 });
    expect(other.code).toBe(1);
    expect(other.stderr).toBe(
      `teamd: ${dir} is closed to this user (it belongs to uid 0): whether a daemon runs there is not this user's to see; run teamd stop as the user who started it\n`,
    );
    expect(isAlive(info.pid)).toBe(true);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it("the pid file's first line is the pid alone: kill $(head -1 .team/run/daemon.pid) stops the daemon cleanly", async () => {
    const dir = stateDir();
    const info = await startDaemon(dir);
    const [first, second] = fs.readFileSync(statePaths(dir).daemonPid, 'utf8').split('\n');
    expect(first).toBe(String(info.pid));
    expect(JSON.parse(second!)).toMatchObject({ pid: info.pid, dir });
    // status gives the start in the reader's zone, as the logs do (not UTC ISO beside them).
    expect((await runTeamd(['status', '--dir', dir])).stdout).toMatch(/\(since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d\d:\d\d\)/);
    const killed = spawnSync('sh', ['-c', `kill $(head -1 ${statePaths(dir).daemonPid})`]);
    expect(killed.status).toBe(0);
    await waitFor(() => !isAlive(info.pid) || null, 'the daemon to stop');
    expect(fs.existsSync(statePaths(dir).daemonPid)).toBe(false);
  });

  it('cleans up the pid file of a daemon that was killed, and starts', async () => {
    const dir = stateDir();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    fs.mkdirSync(statePaths(dir).runDir, { recursive: true });
    fs.writeFileSync(statePaths(dir).daemonPid, JSON.stringify({ pid: dead, startedAt: new Date().toISOString(), dir }));
    fs.writeFileSync(statePaths(dir).daemonSocket, '');
    const info = await startDaemon(dir);
    expect(info.pid).not.toBe(dead);
    expect(readLiveDaemon(statePaths(dir))?.pid).toBe(info.pid);
  });

  it('read-only commands work with the daemon down; commands that need it say how to start it', async () => {
    const dir = stateDir();
    fs.mkdirSync(dir, { recursive: true });
    const status = await runTeamd(['status', '--dir', dir, '--json']);
    expect(JSON.parse(status.stdout).daemon).toBeNull();
    const spawn = await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
    expect(spawn.code).toBe(1);
    expect(spawn.stderr).toContain('teamd start');
    const stop = await runTeamd(['stop', '--dir', dir]);
    expect(stop).toMatchObject({ code: 0 });
    expect(stop.stdout).toContain('no teamd daemon is running');
  });

  it('SIGTERM to the daemon stops every teammate, then the daemon: nothing left running', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir);
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => member(dir, 'bob')?.status === 'idle', 'bob idle');
    const pids = livePids(dir);
    expect(pids).toHaveLength(2);
    process.kill(info.pid, 'SIGTERM');
    await waitFor(() => !isAlive(info.pid), 'daemon exit');
    expect(pids.filter(isAlive)).toEqual([]);
    expect(member(dir, 'alice')).toMatchObject({ status: 'asleep', pid: null });
  });

  it('20 teammates spawned, then stop: zero processes left', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    for (let i = 0; i < 20; i++) expect((await runTeamd(['spawn', `mate-${i}`, 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(
      () => livePids(dir).length === 20 && Array.from({ length: 20 }, (_, i) => member(dir, `mate-${i}`)?.status).every((s) => s === 'idle'),
      '20 idle teammates',
    );
    const pids = livePids(dir);
    const stop = await runTeamd(['stop', '--dir', dir]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(isAlive(info.pid)).toBe(false);
  });

  it('three teamd stop at once: each ends well, whichever got there first', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => livePids(dir).length === 2, 'two teammates');
    const stops = await Promise.all([0, 1, 2].map(() => runTeamd(['stop', '--dir', dir])));
    for (const stop of stops) {
      expect({ code: stop.code, stderr: stop.stderr }).toEqual({ code: 0, stderr: '' });
      expect(stop.stdout).toMatch(new RegExp(`^(teamd daemon stopped \\(pid ${info.pid}\\)|no teamd daemon is running for .*)\n$`));
    }
    expect(stops.some((stop) => stop.stdout.startsWith('teamd daemon stopped'))).toBe(true);
    expect(isAlive(info.pid)).toBe(false);
  });

  it('a client left connected to the control socket, half a request sent, holds neither teamd stop nor the daemon', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    const idle = net.createConnection(statePaths(dir).daemonSocket);
    await once(idle, 'connect');
    idle.write('{"op":');
    const closed = once(idle, 'close');
    idle.on('error', () => {}); // the daemon drops it: a reset is what the client sees
    const stop = await runTeamd(['stop', '--dir', dir]);
    expect({ code: stop.code, stderr: stop.stderr }).toEqual({ code: 0, stderr: '' });
    expect(isAlive(info.pid)).toBe(false);
    await closed;
  });

  it('a command that gave up on a stopped daemon is not carried out when the daemon runs again', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    process.kill(info.pid, 'SIGSTOP');
    try {
      // As teamd spawn does, then gives up (its 30 s): the request and the close wait for the daemon.
      const client = net.createConnection(statePaths(dir).daemonSocket);
      await once(client, 'connect');
      client.write(`${JSON.stringify({ op: 'spawn', name: 'carol', role: 'coder' })}\n`);
      client.destroy();
    } finally {
      process.kill(info.pid, 'SIGCONT');
    }
    const log = path.join(dir, 'logs', 'daemon.log');
    await waitFor(
      () => (fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('control request not carried out') ? true : member(dir, 'carol') ? true : null),
      'the request read',
    );
    expect(member(dir, 'carol')).toBeUndefined();
    // The daemon answers the next one as ever.
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it('a stopped daemon is said to be stopped by a command at once, not after its 30 s wait (issue 49)', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    process.kill(info.pid, 'SIGSTOP');
    try {
      await waitFor(() => fs.readFileSync(`/proc/${info.pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') || null, 'the daemon stopped');
      for (const args of [
        ['spawn', 'carol', 'coder'],
        ['shutdown', 'carol'],
      ]) {
        const result = await runTeamd([...args, '--dir', dir]);
        expect(result.code).not.toBe(0);
        // Not "within 30 s": it looked at the daemon's process while it waited.
        expect(result.stderr).toBe(
          `teamd: the daemon did not answer "${args[0]}" (it is stopped): its process (pid ${info.pid}) is stopped (SIGSTOP, Ctrl-Z or a debugger): resume it with kill -CONT ${info.pid}\n`,
        );
      }
    } finally {
      process.kill(info.pid, 'SIGCONT');
    }
    expect(member(dir, 'carol')).toBeUndefined();
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it('a teammate stopped with SIGSTOP is named in status with what to do; continued, the line goes', async () => {
    const dir = stateDir();
    await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const pid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
    process.kill(pid, 'SIGSTOP');
    try {
      await waitFor(() => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('T') || null, 'alice stopped');
      const status = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as {
        needsYou: string[];
        members: { name: string; problem: string | null }[];
      };
      const line = `its process (pid ${pid}) is stopped (SIGSTOP, Ctrl-Z or a debugger): it takes no work and answers nothing; resume it with kill -CONT ${pid}`;
      expect(status.members).toMatchObject([{ name: 'alice', problem: line }]);
      expect(status.needsYou).toContain(`alice: ${line}`);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const after = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { needsYou: string[] };
    expect(after.needsYou.filter((l) => l.includes('is stopped'))).toEqual([]);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it('kill -9 of the daemon: its teammates exit by themselves, and the next start resumes them', async () => {
    const dir = stateDir();
    const info = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
    const pid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
    process.kill(info.pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), 'the orphaned teammate to exit', 5_000);
    // The roster still says idle (nobody was left to change it); status tells the truth.
    expect(member(dir, 'alice')?.status).toBe('idle');
    const status = await runTeamd(['status', '--dir', dir, '--json']);
    const shown = JSON.parse(status.stdout) as { daemon: unknown; members: { name: string; status: string; pid: number | null }[]; needsYou: string[] };
    expect(shown.daemon).toBeNull();
    expect(shown.members).toMatchObject([{ name: 'alice', status: 'stopped', pid: null }]);
    expect(shown.needsYou[0]).toMatch(/^the daemon is not running: alice \(stopped\) stopped with it; start it again/);
    expect((await runTeamd(['status', '--dir', dir])).stdout).toMatch(/^alice\s+coder\s+stopped\s/m);
    await startDaemon(dir);
    const again = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice resumed');
    expect(again).not.toBe(pid);
  });

  it('reconciles on start: a task held by an errored member goes back to the board; a member that was working is resumed', async () => {
    const dir = stateDir();
    const { board } = openBoard(dir);
    await board.add({ subject: 'held by a dead teammate' });
    await board.add({ subject: 'held by a teammate to resume' });
    await board.claim(1, 'ghost');
    await board.claim(2, 'worker');
    fs.writeFileSync(
      statePaths(dir).config,
      JSON.stringify({
        members: [
          { name: 'ghost', role: 'coder', status: 'errored', pid: null },
          { name: 'worker', role: 'coder', status: 'working', pid: 999999, task: 2 },
        ],
      }),
    );
    await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
    expect(board.get(2)).toMatchObject({ status: 'in_progress', owner: 'worker' });
    const pid = await waitFor(() => member(dir, 'worker')?.pid, 'worker relaunched');
    expect(isAlive(pid)).toBe(true);
  });
});
