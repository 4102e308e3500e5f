import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { notAnsweringHint } from '../../src/daemon/not-answering.js';
import { statePaths } from '../../src/paths.js';
import { processStartTime, processState } from '../../src/proc/process-identity.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const children: number[] = [];
onBeforeTempRemoval(async () => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

describe('notAnsweringHint: why the daemon did not answer, from its process', () => {
  it('running, stopped, gone: each says what to do', async () => {
    const paths = statePaths(path.join(makeTempDir(), '.team'));
    fs.mkdirSync(path.dirname(paths.daemonPid), { recursive: true });
    // A process standing for the daemon, believed by its pid file (its own start time).
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = child.pid!;
    children.push(pid);
    const start = await waitFor(() => processStartTime(pid), 'the process to start');
    fs.writeFileSync(paths.daemonPid, JSON.stringify({ pid, start, startedAt: new Date().toISOString(), dir: paths.root }));

    expect(notAnsweringHint(paths)).toBe(
      `its process (pid ${pid}) is busy or hung (see: teamd logs); if it stays so, end it with kill ${pid} (kill -9 ${pid} if that does not), its teammates exit with it, then: teamd start --dir ${paths.root}`,
    );
    process.kill(pid, 'SIGSTOP');
    await waitFor(() => processState(pid) === 'T', 'the process stopped');
    expect(notAnsweringHint(paths)).toBe(`its process (pid ${pid}) is stopped (SIGSTOP, Ctrl-Z or a debugger): resume it with kill -CONT ${pid}`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(pid, 'SIGKILL');
    await exited;
    expect(notAnsweringHint(paths)).toBe(`it is not running any more: teamd status --dir ${paths.root}`);
  });
});
