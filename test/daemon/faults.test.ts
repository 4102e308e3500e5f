import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/proc/pid-file.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { DISK_FULL_EXIT_CODE } from '../../src/supervisor/restart-policy.js';
import { openBoard } from '../helpers/board.js';
import { lastStopRungs, livePids, member, startDaemon } from '../helpers/daemon.js';
import { processesWithEnv, runTeamd } from '../helpers/processes.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitFor, waitForAsync } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;
const mounted: string[] = [];
onBeforeTempRemoval(async () => {
  for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir]);
});

/** Fills a filesystem until it refuses more, with one file that can be removed to free it. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
  // Fill the last partial block too.
  try {
    for (;;) fs.appendFileSync(file, 'x');
  } catch {
    // full
  }
  return file;
}

/** A fresh tmpfs of `size` (e.g. "4m"), unmounted after the test. */
function tmpfs(size: string): string {
  const mount = makeTempDir('teamd-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mount]);
  mounted.push(mount);
  return mount;
}

/** A daemon whose state folder is on a fresh 24 MiB tmpfs, with alice spawned. */
async function aliceOnSmallDisk(): Promise<{ mount: string; dir: string; daemonPid: number }> {
  const mount = tmpfs('24m');
  const dir = path.join(mount, '.team');
  const daemon = await startDaemon(dir, { settings: { idleTimeoutMs: 0, sandbox: 'preferred' } });
  expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  return { mount, dir, daemonPid: daemon.pid };
}

function lead(dir: string): string[] {
  return readInboxFrom(statePaths(dir).inboxFile('lead'), 0).messages.map((m) => m.message.content);
}

describe('the daemon under damaged state and a failing disk', () => {
  it.runIf(process.getuid?.() === 0)(
    'the state folder on a tmpfs filled up and freed: the daemon stays alive, says so, and nothing acknowledged is lost',
    async () => {
      const { mount, dir, daemonPid } = await aliceOnSmallDisk();
      const alicePid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
      expect((await runTeamd(['send', 'alice', 'before the disk filled', '--dir', dir])).code).toBe(0);
      await waitFor(() => lead(dir).some((c) => c.includes('before the disk filled')), 'alice answered');

      const filler = fill(mount);
      const sent = await runTeamd(['send', 'alice', 'while the disk is full', '--dir', dir]);
      const added = await runTeamd(['task', 'add', 'while full', '--dir', dir]);
      for (const result of [sent, added]) {
        if (result.code !== 0) expect(result.stderr.trim().split('\n')).toHaveLength(1);
      }
      // A teammate dies: the daemon must record it on a disk that refuses the write.
      if (isAlive(alicePid)) process.kill(alicePid, 'SIGKILL');
      const status = await waitForAsync(async () => {
        const out = await runTeamd(['status', '--dir', dir]);
        return out.stdout.includes('cannot write') ? out.stdout : null;
      }, 'status to report the failing roster write');
      expect(status).toMatch(/needs you:[\s\S]*cannot write .*config\.json.*ENOSPC/);
      // The code once, as Node's own message has it (not "ENOSPC: ENOSPC: ...").
      expect(status).not.toMatch(/ENOSPC: ENOSPC/);
      expect(isAlive(daemonPid)).toBe(true);

      fs.rmSync(filler);
      await waitForAsync(async () => !(await runTeamd(['status', '--dir', dir])).stdout.includes('cannot write'), 'the roster written again');
      expect(isAlive(daemonPid)).toBe(true);
      // What was acknowledged is there; the team works again.
      const alice = member(dir, 'alice');
      if (alice?.status === 'errored') expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
      const inbox = readInboxFrom(statePaths(dir).inboxFile('alice'), 0).messages.map((m) => m.message.content);
      expect(inbox).toContain('before the disk filled');
      if (sent.code === 0) expect(inbox).toContain('while the disk is full');
      if (added.code === 0)
        expect(
          openBoard(dir)
            .board.list()
            .tasks.map((t) => t.subject),
        ).toContain('while full');
      const { board } = openBoard(dir);
      const task = await board.add({ subject: 'after', description: sh('echo after') });
      await waitFor(() => board.get(task.id).status === 'completed', 'a task done after the disk was freed', 30_000);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'a task write refused by a full disk leaves no revision token behind: once space is back, the task is written at once',
    async () => {
      const mount = tmpfs('4m');
      const { board, paths } = openBoard(path.join(mount, '.team'));
      const task = await board.add({ subject: 'claimed while the disk is full' });
      const filler = fill(mount);
      await expect(board.claim(task.id, 'alice')).rejects.toThrow(/ENOSPC/);
      // Only the first version's token: none for a version that was never written.
      expect(fs.readdirSync(paths.revisionsDir).filter((name) => name.startsWith(`${task.id}.`))).toEqual([`${task.id}.0`]);
      expect(board.get(task.id)).toMatchObject({ status: 'pending', rev: 0 });

      fs.rmSync(filler);
      // Not "another process is writing revision 1 right now" for the lock's stale time.
      expect(await board.claim(task.id, 'alice')).toMatchObject({ status: 'in_progress', owner: 'alice', rev: 1 });
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'a teammate shut down while the disk is full keeps no task: the release that failed is tried again once space is back',
    async () => {
      const { mount, dir, daemonPid } = await aliceOnSmallDisk();
      const { board } = openBoard(dir);
      const task = await board.add({ subject: 'long', description: sh('sleep 600') });
      await waitFor(() => board.get(task.id).owner === 'alice', 'alice on the task');

      const filler = fill(mount);
      // Answered once alice is gone and her task's release was tried: on this disk it cannot be written.
      expect((await runTeamd(['shutdown', 'alice', '--force', '--dir', dir])).code).toBe(0);
      expect(board.get(task.id)).toMatchObject({ status: 'in_progress', owner: 'alice' });

      fs.rmSync(filler);
      await waitFor(() => board.get(task.id).status === 'pending' && board.get(task.id).owner === null, 'the task back on the board', 30_000);
      expect(isAlive(daemonPid)).toBe(true);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'a teammate whose disk fills mid-task is not marked errored: it waits for space, then resumes and finishes the task',
    async () => {
      const { mount, dir } = await aliceOnSmallDisk();
      const firstPid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
      // The command waits for a file in the workspace (an empty file still fits on the full disk):
      // its step ends, and is saved, only once the disk is full.
      const go = path.join(mount, 'go');
      const { board } = openBoard(dir);
      const task = await board.add({ subject: 'spans the full disk', description: sh(`while [ ! -e ${go} ]; do sleep 0.05; done`, 'echo finished') });
      await waitFor(() => board.get(task.id).owner === 'alice', 'alice on the task');

      const filler = fill(mount);
      fs.writeFileSync(go, '');
      // Her step cannot be saved: she exits for the full disk, and is started again later, not given up on.
      await waitFor(() => !isAlive(firstPid), 'alice stopped by the full disk', 30_000);
      fs.rmSync(filler);

      await waitFor(() => board.get(task.id).status === 'completed', 'the task finished after the disk was freed', 60_000);
      await waitFor(() => member(dir, 'alice')?.lastExit === `exit code ${DISK_FULL_EXIT_CODE}`, 'the roster written again');
      expect(member(dir, 'alice')).toMatchObject({ restarts: 0 });
      expect(member(dir, 'alice')?.status).not.toBe('errored');
      expect(board.get(task.id).owner).toBe('alice');
    },
  );

  it.runIf(process.getuid?.() === 0)('teamd start on a full disk says so in its error, though the daemon could not write why', async () => {
    const mount = tmpfs('2m');
    const dir = path.join(mount, '.team');
    openBoard(dir);
    expect((await runTeamd(['task', 'add', 'before', '--dir', dir])).code).toBe(0);
    const filler = fill(mount);
    const started = await runTeamd(['start', '--dir', dir]);
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/^teamd: the daemon exited during start-up \(code \d+\)[:\s]/);
    expect(started.stderr).toContain(`the disk holding ${dir} is full`);
    fs.rmSync(filler);
    await startDaemon(dir);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it('a schema-invalid pending task: idle teammates claim every other task, and stop answers on the first rung', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const { board, paths } = openBoard(dir);
    await board.add({ subject: 'broken' });
    const valid = JSON.parse(fs.readFileSync(paths.taskFile(1), 'utf8'));
    fs.writeFileSync(paths.taskFile(1), JSON.stringify({ ...valid, claim: -1 }));
    await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    for (let i = 0; i < 4; i++) await board.add({ subject: `fine ${i}`, description: sh('true') });
    await waitFor(() => board.list().tasks.filter((t) => t.status === 'completed').length === 4, 'every valid task done');
    await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'bob')?.status === 'idle', 'both idle again');
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.stdout).toMatch(/needs you:[\s\S]*task_1\.json.*claim/);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(lastStopRungs(dir)).toEqual({ alice: 'ipc', bob: 'ipc' });
    expect(JSON.parse(fs.readFileSync(paths.taskFile(1), 'utf8')).claim).toBe(-1);
  });

  it('a task file too big to read (600 MB) and a folder named like a task: skipped and reported, never read; the team and the CLI keep working', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const { board, paths } = openBoard(dir);
    await board.add({ subject: 'placeholder' });
    await board.cancel(1);
    // Sparse: 600 MB long, no disk used. Read whole, it is longer than V8's longest string.
    fs.writeFileSync(paths.taskFile(2), '');
    fs.truncateSync(paths.taskFile(2), 600 * 1024 * 1024);
    fs.mkdirSync(paths.taskFile(3));
    fs.writeFileSync(paths.taskCounter, `${JSON.stringify({ next: 4 })}\n`);
    await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    for (let i = 0; i < 3; i++) await board.add({ subject: `fine ${i}`, description: sh('true') });
    await waitFor(() => board.list().tasks.filter((t) => t.subject.startsWith('fine') && t.status === 'completed').length === 3, 'every other task done');
    await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'bob')?.status === 'idle', 'both idle again');
    for (const name of ['alice', 'bob']) expect(member(dir, name)?.restarts ?? 0).toBe(0);

    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/task_2\.json: it is 629145600 bytes, over the limit of 8388608/);
    expect(status.stdout).toMatch(/task_3\.json: it is not a regular file/);
    const list = await runTeamd(['task', 'list', '--json', '--dir', dir]);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { subject: string }[]).map((t) => t.subject)).toEqual(['placeholder', 'fine 0', 'fine 1', 'fine 2']);
    expect(list.stderr).toMatch(/skipped .*task_2\.json: it is 629145600 bytes/);
    const show = await runTeamd(['task', 'show', '2', '--dir', dir]);
    expect(show.code).not.toBe(0);
    expect(show.stderr.trim().split('\n')).toEqual([expect.stringMatching(/task_2\.json is not a valid task \(it is 629145600 bytes, over the limit/)]);
    expect(fs.statSync(paths.taskFile(2)).size).toBe(600 * 1024 * 1024);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
  });

  it('a config.json damaged while the daemon runs is set aside, the last good roster kept, and the daemon keeps serving', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const daemon = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const pid = await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.pid, 'alice idle');
    const config = statePaths(dir).config;
    const damagedBytes = fs.readFileSync(config, 'utf8').slice(0, 40);
    fs.writeFileSync(config, damagedBytes);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => {
      try {
        const again = member(dir, 'alice');
        return again?.pid && again.pid !== pid && again.status === 'idle';
      } catch {
        return null; // still the damaged file
      }
    }, 'alice restarted and the roster whole again');
    // Set aside with its bytes, unless the daemon's own write replaced it first (a write racing the damage).
    for (const aside of fs.readdirSync(dir).filter((name) => name.startsWith('config.json.damaged-'))) {
      expect(fs.readFileSync(path.join(dir, aside), 'utf8')).toBe(damagedBytes);
    }
    expect(isAlive(daemon.pid)).toBe(true);
    expect((await runTeamd(['spawn', 'bob', 'coder', '--dir', dir])).code).toBe(0);
  });

  it('FIFOs in place of a task file and of the done index, and a task file that is a loop of links: never waited on, the team works, the CLI answers and says so', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const { board, paths } = openBoard(dir);
    await board.add({ subject: 'finished', description: sh('true') });
    await board.complete(1, {}, 'done before');
    fs.rmSync(paths.doneIndex);
    execFileSync('mkfifo', [paths.doneIndex, paths.taskFile(2)]);
    fs.symlinkSync(path.basename(paths.taskFile(3)), paths.taskFile(3));
    fs.writeFileSync(paths.taskCounter, `${JSON.stringify({ next: 4 })}\n`);
    const daemon = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    for (const name of ['alice', 'bob']) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    for (let i = 0; i < 3; i++) await board.add({ subject: `fine ${i}`, description: sh('true') });
    await waitFor(() => board.list().tasks.filter((t) => t.subject.startsWith('fine') && t.status === 'completed').length === 3, 'the tasks done');
    for (const name of ['alice', 'bob']) expect(member(dir, name)?.restarts ?? 0).toBe(0);
    const status = await runTeamd(['status', '--json', '--dir', dir]);
    expect(status.code).toBe(0);
    const shown = JSON.parse(status.stdout) as { tasks: { completed: number }; needsYou: string[] };
    expect(shown.tasks.completed).toBe(4);
    expect(shown.needsYou).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/task_2\.json: it is not a regular file/),
        expect.stringMatching(/task_3\.json: it is a loop of symbolic links/),
      ]),
    );
    expect((await runTeamd(['task', 'list', '--dir', dir])).code).toBe(0);
    const show = await runTeamd(['task', 'show', '2', '--dir', dir]);
    expect(show.stderr.trim().split('\n')).toEqual([expect.stringMatching(/task_2\.json is not a valid task \(it is not a regular file\)/)]);
    expect(fs.statSync(paths.taskFile(2)).isFIFO()).toBe(true);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(isAlive(daemon.pid)).toBe(false);
  });

  it('a config.json too big to read (600 MB) is reported, never read: status shows the rest, start refuses in one line, a running daemon sets it aside', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const { board } = openBoard(dir);
    await board.add({ subject: 'still listed' });
    const config = statePaths(dir).config;
    const enlarge = () => fs.truncateSync(config, 600 * 1024 * 1024); // sparse: no disk used
    fs.writeFileSync(config, '');
    enlarge();
    const tooBig = /config\.json is not a valid roster \(it is 629145600 bytes, over the limit of 16777216\)/;
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/tasks: +1 pending/);
    expect(status.stdout).toMatch(tooBig);
    expect(status.stderr.trim().split('\n')).toEqual([expect.stringMatching(tooBig)]);
    expect((await runTeamd(['task', 'list', '--dir', dir])).stdout).toMatch(/still listed/);
    const start = await runTeamd(['start', '--dir', dir]);
    expect(start.code).not.toBe(0);
    expect(start.stderr.trim().split('\n')).toEqual([expect.stringMatching(tooBig)]);

    fs.rmSync(config);
    const daemon = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => member(dir, 'alice')?.status === 'idle', 'alice idle');
    enlarge();
    expect((await runTeamd(['spawn', 'bob', 'coder', '--dir', dir])).code).toBe(0);
    // Set aside whole, unless the daemon's own write replaced it first (a write racing the damage).
    for (const aside of fs.readdirSync(dir).filter((name) => name.startsWith('config.json.damaged-')))
      expect(fs.statSync(path.join(dir, aside)).size).toBe(600 * 1024 * 1024);
    expect(fs.statSync(config).size).toBeLessThan(64 * 1024);
    expect(member(dir, 'bob')?.role).toBe('coder');
    expect(isAlive(daemon.pid)).toBe(true);
  });

  it('a roster listing a teammate twice is refused at start, in one line naming the file', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      statePaths(dir).config,
      JSON.stringify({
        members: [
          { name: 'alice', role: 'coder', status: 'asleep' },
          { name: 'alice', role: 'coder', status: 'asleep' },
        ],
      }),
    );
    const result = await runTeamd(['start', '--dir', dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('config.json');
    expect(result.stderr).toContain('"alice" is listed twice');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(processesWithEnv(`TEAMD_WORKER_OF=${dir}\0`)).toEqual([]);
  });

  it('a malformed offline-script.json is reported and ignored; the teammates keep answering', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const daemon = await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    fs.writeFileSync(path.join(dir, 'offline-script.json'), '{"alice": [{"status": 42');
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['send', 'alice', 'still there?', '--dir', dir])).code).toBe(0);
    await waitFor(() => lead(dir).some((c) => c.includes('still there?')), 'alice answered');
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).toContain('offline-script.json is ignored');
    expect(isAlive(daemon.pid)).toBe(true);
  });

  it('a pid file naming an unrelated live process is not believed: status, start and stop do the right thing', async () => {
    const dir = path.join(makeTempDir(), '.team');
    fs.mkdirSync(path.join(dir, 'run'), { recursive: true });
    const unrelated = spawn('sleep', ['300']);
    try {
      fs.writeFileSync(statePaths(dir).daemonPid, JSON.stringify({ pid: unrelated.pid, start: 1, startedAt: new Date().toISOString(), dir }));
      expect((await runTeamd(['status', '--dir', dir])).stdout).toContain('daemon: not running');
      expect((await runTeamd(['stop', '--dir', dir])).stdout).toContain('no teamd daemon is running');
      const info = await startDaemon(dir);
      expect(info.pid).not.toBe(unrelated.pid);
      expect((await runTeamd(['status', '--dir', dir])).stdout).toContain(`pid ${info.pid}`);
      expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
      expect(isAlive(unrelated.pid!)).toBe(true);
      expect(livePids(dir)).toEqual([]);
    } finally {
      unrelated.kill('SIGKILL');
    }
  });
});
