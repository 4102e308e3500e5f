import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { FIXTURES, TEAMD_BIN, runTeamd } from '../helpers/processes.js';
import { beforeThisTestsFoldersGo, makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const missing =
  spawnSync('systemd-notify', ['--version']).status !== 0
    ? 'systemd-notify (apt-get install -y systemd)'
    : spawnSync('python3', ['--version']).status !== 0
      ? 'python3 (apt-get install -y python3), for the stand-in notify socket'
      : null;
if (missing) process.stderr.write(`systemd notify test SKIPPED: it needs ${missing}\n`);
const sandboxed = spawnSync('bwrap', ['--version']).status === 0;

describe.skipIf(missing !== null)('a daemon started by systemd with Type=notify', () => {
  it("says READY=1 with its own pid once it answers, STOPPING=1 when it stops; a teammate's command cannot reach the socket", async () => {
    const ws = makeTempDir('teamd-notify-');
    const dir = path.join(ws, '.team');
    const socket = path.join(ws, 'notify.sock');
    // The stand-in for the manager's socket: one line per notice.
    const listener = spawn('python3', [path.join(FIXTURES, 'notify-socket.py'), socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    let notices = '';
    listener.stdout.on('data', (chunk: Buffer) => (notices += chunk.toString()));
    try {
      await waitFor(() => notices.includes('listening') || null, 'the stand-in socket');
      fs.mkdirSync(dir, { recursive: true });
      const { board } = openBoard(dir);
      fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
      const daemon = spawn(process.execPath, [TEAMD_BIN, 'start', '--foreground', '--dir', dir], {
        stdio: 'ignore',
        env: { ...process.env, NOTIFY_SOCKET: socket },
      });
      // Stopped whatever happens, before its folder goes (a failed assertion must not leave it running).
      beforeThisTestsFoldersGo(async () => {
        await runTeamd(['stop', '--dir', dir]);
      });
      const exited = new Promise((resolve) => daemon.once('close', resolve));
      const ready = await waitFor(() => /^READY=1 \| STATUS=ready: 0 teammates, pid (\d+) \| MAINPID=(\d+)$/m.exec(notices) ?? undefined, 'READY=1');
      expect(ready[1]).toBe(String(daemon.pid));
      expect(ready[2]).toBe(String(daemon.pid));
      // The control socket answers by the time it says so.
      expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
      if (sandboxed) {
        // A command run by a teammate, told where the socket is, tries to speak for the service.
        const task = await board.add({
          subject: 'claim the service',
          description: `\`\`\`sh\nNOTIFY_SOCKET=${socket} systemd-notify --no-block MAINPID=1 STATUS=from-a-teammate; echo "notify exit $?"\n\`\`\``,
        });
        await waitFor(() => board.get(task.id).status === 'completed' || null, 'the task done');
        expect(board.get(task.id).result).toMatch(/notify exit 1/);
      }
      expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
      await exited;
      expect(notices).toMatch(/^STOPPING=1 \| STATUS=stopping the teammates$/m);
      expect(notices).not.toContain('from-a-teammate');
      expect(notices.indexOf('READY=1')).toBeLessThan(notices.indexOf('STOPPING=1'));
    } finally {
      listener.kill();
    }
  });

  it('with nobody listening on NOTIFY_SOCKET, the daemon says so once in its log and serves on', async () => {
    const ws = makeTempDir('teamd-notify-');
    const dir = path.join(ws, '.team');
    const daemon = spawn(process.execPath, [TEAMD_BIN, 'start', '--foreground', '--dir', dir], {
      stdio: 'ignore',
      env: { ...process.env, NOTIFY_SOCKET: path.join(ws, 'nobody.sock') },
    });
    beforeThisTestsFoldersGo(async () => {
      await runTeamd(['stop', '--dir', dir]);
    });
    const exited = new Promise((resolve) => daemon.once('close', resolve));
    const log = () => (fs.existsSync(path.join(dir, 'logs', 'daemon.log')) ? fs.readFileSync(path.join(dir, 'logs', 'daemon.log'), 'utf8') : '');
    await waitFor(() => log().includes('could not tell systemd') || null, 'the warning');
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(await exited).toBe(0);
    expect(log().split('could not tell systemd')).toHaveLength(2);
  });
});
