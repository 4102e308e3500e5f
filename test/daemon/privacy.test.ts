import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { livePids, startDaemon } from '../helpers/daemon.js';
import { TEAMD_BIN, runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/** Runs the CLI under a given umask (through sh, as a person's shell would). */
function teamdWithUmask(umask: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const quoted = args.map((arg) => `'${arg.replace(/'/g, "'\\''")}'`).join(' ');
    execFile('sh', ['-c', `umask ${umask}; exec "${process.execPath}" "${TEAMD_BIN}" ${quoted}`], (error) =>
      resolve(error ? ((error.code as number) ?? 1) : 0),
    );
  });
}

function modeOf(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8);
}

describe('private state', () => {
  it('under umask 000 the state folder is 0700 and its files 0600; a folder made wider is tightened', async () => {
    const dir = path.join(makeTempDir(), '.team');
    expect(await teamdWithUmask('000', ['task', 'add', 'first', '--dir', dir])).toBe(0);
    expect(await teamdWithUmask('000', ['send', 'lead', 'note to self', '--dir', dir])).toBe(0);
    const paths = statePaths(dir);
    expect(modeOf(paths.root)).toBe('700');
    expect(modeOf(paths.tasksDir)).toBe('700');
    expect(modeOf(paths.taskFile(1))).toBe('600');
    expect(modeOf(paths.inboxFile('lead'))).toBe('600');
    expect(modeOf(paths.logFile('cli'))).toBe('600');
    // A finished task: its file in done/, and the done index's line.
    expect(await teamdWithUmask('000', ['task', 'cancel', '1', '--dir', dir])).toBe(0);
    expect(modeOf(paths.doneDir)).toBe('700');
    expect(modeOf(paths.doneTaskFile(1))).toBe('600');
    expect(modeOf(paths.doneIndex)).toBe('600');
    fs.chmodSync(paths.root, 0o777);
    expect(await teamdWithUmask('000', ['task', 'add', 'second', '--dir', dir])).toBe(0);
    expect(modeOf(paths.root)).toBe('700');
  });

  it('the offline model endpoint refuses callers without the daemon key', async () => {
    const dir = path.join(makeTempDir(), '.team');
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const [pid] = await waitFor(() => (livePids(dir).length > 0 ? livePids(dir) : null), 'alice running');
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
    const url = environ.find((entry) => entry.startsWith('TEAMD_OFFLINE_URL='))!.split('=')[1]!;
    const body = JSON.stringify({ model: 'offline', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const anonymous = await fetch(`${url}/v1/messages`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': 'offline' } });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
  });
});
