import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/cli/commands/logs.js';
import { startDaemon } from '../helpers/daemon.js';
import { collectOutput, runTeamd, TEAMD_BIN } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

describe('teamd logs', () => {
  it('formats pino lines readably and leaves other lines alone', () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 1, 12, 0, 0), pid: 1, teammate: 'alice', msg: 'lock compromised', taskId: 3 });
    expect(formatLogLine(line)).toBe('12:00:00.000 WARN  alice: lock compromised  taskId=3');
    expect(formatLogLine('plain text')).toBe('plain text');
  });

  it("shows the daemon's and a teammate's log, and --follow streams new lines", async () => {
    const dir = path.join(makeTempDir(), '.team');
    await startDaemon(dir);
    await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
    const daemonLog = await runTeamd(['logs', '--dir', dir]);
    expect(daemonLog.stdout).toMatch(/INFO {2}daemon: daemon ready/);
    const follower = spawn(process.execPath, [TEAMD_BIN, 'logs', '--follow', '--lines', '1', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput(follower);
    let seen = '';
    follower.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    // Its first line (the last one logged) means the follower has fixed where it reads from.
    await waitFor(() => seen.length > 0, 'the follower to print the last line');
    await runTeamd(['spawn', 'bob', 'coder', '--dir', dir]);
    await waitFor(() => seen.includes('bob: teammate started'), 'the follower to show bob starting');
    follower.kill('SIGINT');
    expect((await output).code).toBe(0);
    const aliceLog = await runTeamd(['logs', 'alice', '--dir', dir]);
    expect(aliceLog.stdout).toMatch(/alice: teammate started/);
  });
});
