import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../src/model/offline/script.js';
import { readInboxFrom } from '../../src/inbox/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

/** One teammate, one task (`echo ok > out.txt`), the offline model scripted to misbehave first. */
async function scenario(steps: ScriptStep[]) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  await board.add({ subject: 'write out.txt', description: '```sh\necho ok > out.txt\n```' });
  fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ alice: steps }));
  await startDaemon(dir);
  expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  const task = await waitFor(() => {
    const t = board.get(1);
    return t.status === 'completed' || t.status === 'failed' ? t : undefined;
  }, 'the task to finish');
  const log = (name: string) => fs.readFileSync(statePaths(dir).logFile(name), 'utf8');
  return { ws, dir, task, log, lead: () => readInboxFrom(statePaths(dir).inboxFile('lead'), 0).messages.map((m) => m.message) };
}

describe('model errors on the offline model (real SDK)', () => {
  it('429 and 529 are retried by the SDK and the task completes', async () => {
    const { ws, task, log } = await scenario([{ status: 429 }, { status: 529 }]);
    expect(task.status).toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8')).toBe('ok\n');
    expect(log('daemon').match(/scripted response/g)).toHaveLength(2);
  });

  it('stop_reason max_tokens is continued, and the task completes', async () => {
    const { task, dir } = await scenario([{ stopReason: 'max_tokens', text: 'I will now run the comm' }]);
    expect(task.status).toBe('completed');
    expect(fs.readFileSync(statePaths(dir).sessionFile('alice'), 'utf8')).toContain('[teamd:continue]');
  });

  it('prompt too long compacts the conversation and retries, and the task completes', async () => {
    const { task, log } = await scenario([{ status: 400, promptTooLong: true }]);
    expect(task.status).toBe('completed');
    expect(log('alice')).toMatch(/conversation compacted/);
  });

  it('any other error fails the task with the error, tells the lead, and the teammate goes idle', async () => {
    const { task, lead, dir } = await scenario([{ status: 500 }]);
    expect(task.status).toBe('failed');
    expect(task.result).toMatch(/model error: .*500/);
    const notice = await waitFor(() => lead().find((m) => m.type === 'task_failed'), 'a task_failed notice');
    expect(notice.content).toContain('model error');
    await waitFor(() => JSON.parse(fs.readFileSync(statePaths(dir).config, 'utf8')).members[0].status === 'idle', 'alice idle, not dead');
  });
});
