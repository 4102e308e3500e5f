import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { isAlive } from '../../src/proc/pid-file.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitFor, waitForAsync } from '../helpers/wait.js';

const url = inject('pgUrl');

describe.skipIf(url === null)('a PostgreSQL store that goes away', () => {
  it('a teammate waits it out without failing its task, status says the store is unreachable, and the task completes once it is back', async () => {
    const target = new URL(url!);
    const proxy = await startTcpProxy(Number(target.port));
    onBeforeTempRemoval(() => proxy.close());
    const through = new URL(url!);
    through.port = String(proxy.port);
    const dir = path.join(makeTempDir('teamd-pgfault-'), 'ws', '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      statePaths(dir).config,
      JSON.stringify({ members: [], settings: { store: through.toString(), team: `fault-${randomUUID().slice(0, 6)}`, host: 'h1', idleTimeoutMs: 0 } }),
    );
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    // The command waits for a file the test writes once the store is cut: the task is in the middle of its work then.
    const gate = path.join(path.dirname(dir), 'go');
    const added = await runTeamd([
      'task',
      'add',
      'outlive the store',
      '--description',
      `\`\`\`sh\nwhile [ ! -f ${gate} ]; do sleep 0.05; done; echo finished\n\`\`\``,
      '--dir',
      dir,
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    await waitForAsync(
      async () => JSON.parse((await runTeamd(['task', 'show', '1', '--dir', dir, '--json'])).stdout).status === 'in_progress',
      'alice to claim it',
    );
    const pid = member(dir, 'alice')!.pid!;

    proxy.cut();
    fs.writeFileSync(gate, '');
    const status = await runTeamd(['status', '--dir', dir, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout);
    expect(report.store).toMatchObject({ kind: 'postgres', reachable: false });
    expect(report.needsYou.join('\n')).toContain('unreachable');
    const list = await runTeamd(['task', 'list', '--dir', dir]);
    expect(list.code).toBe(1);
    expect(list.stderr.trim().split('\n')).toHaveLength(1);
    expect(list.stderr).toContain('the PostgreSQL store is unreachable');
    // The command finished while the store was away: alice waits to record it, alive, once told in her log.
    const log = statePaths(dir).logFile('alice');
    await waitFor(() => fs.existsSync(log) && fs.readFileSync(log, 'utf8').includes('the store is unreachable: waiting for it'), 'alice to wait for the store');
    expect(isAlive(pid)).toBe(true);

    proxy.restore();
    const done = await waitForAsync(
      async () => {
        const shown = await runTeamd(['task', 'show', '1', '--dir', dir, '--json']);
        if (shown.code !== 0) return null;
        const task = JSON.parse(shown.stdout);
        return task.status === 'completed' || task.status === 'failed' ? task : null;
      },
      'the task to end once the store is back',
      60_000,
    );
    expect(done).toMatchObject({ status: 'completed', owner: 'alice', claim: 1 });
    expect(done.result).toContain('finished');
    expect(member(dir, 'alice')).toMatchObject({ restarts: 0 });
    expect(member(dir, 'alice')!.pid).toBe(pid);
  });
});
