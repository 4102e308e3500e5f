import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { collectOutput, REPO_ROOT, waitForLine } from '../helpers/processes.js';
import { recordedRequests } from '../helpers/recorded-requests.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

const sessions: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of sessions.splice(0)) child.kill('SIGKILL');
});

async function team() {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  await board.add({ subject: 'an existing task' });
  const record = path.join(ws, 'requests.jsonl');
  await startDaemon(dir, { env: { TEAMD_OFFLINE_RECORD: record } });
  const session = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/teamd'), 'lead', '--dir', dir], { stdio: 'pipe' });
  sessions.push(session);
  return { dir, board, session, output: collectOutput(session), requests: () => recordedRequests(record) };
}

describe('teamd lead', () => {
  it('answers /tasks, /team, /plans and /inbox from the state folder, without a model call or a lead agent', async () => {
    const { dir, session, output, requests } = await team();
    session.stdin.end('/tasks\n/team\n/plans\n/inbox\n/nonsense\n/quit\n');
    const result = await output;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('ID  STATUS   OWNER  SUBJECT\n1   pending  -      an existing task');
    expect(result.stdout).toContain('no teammates\n');
    expect(result.stdout).toContain('no plan or permission request is waiting\n');
    expect(result.stdout).toContain('no messages from the lead\n');
    expect(result.stdout).toContain('unknown command "/nonsense"');
    expect(member(dir, 'lead')).toBeUndefined();
    expect(requests()).toEqual([]);
  });

  it("sends what the person types to the lead, starting it, and prints the lead's reply as it comes", async () => {
    const { dir, board, session, output } = await team();
    session.stdin.write('hello lead\n');
    // Offline, the lead answers a goal without a teamd-plan block with a final report saying so.
    const reply = await waitForLine(session, /^lead \(report\): /);
    expect(reply).toContain('Offline, I lead only goals with a ```teamd-plan block');
    expect(member(dir, 'lead')).toMatchObject({ role: 'lead' });
    // The team's events come in between: a task added now is shown.
    await board.add({ subject: 'new work' });
    await waitForLine(session, /^task 2 created: new work$/);
    session.stdin.end();
    const result = await output;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('(started the lead agent)');
    expect(fs.existsSync(path.join(dir, 'inbox', 'user.jsonl'))).toBe(true);
  });
});
