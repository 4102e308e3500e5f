import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import type { ScriptStep } from '../../src/model/offline/script.js';
import { isAlive } from '../../src/proc/process-identity.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { savedSessionText } from '../helpers/session.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor, waitForAsync } from '../helpers/wait.js';

const calls = (value: unknown) => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

interface JobJson {
  id: string;
  state: string;
  exitCode: number | null;
  pid: number | null;
  note: string | null;
}

/** alice on the offline model, with one task that starts `command` in the background and completes. */
async function team(command: string, settings: Record<string, unknown> = {}, script?: ScriptStep[]) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  await board.add({ subject: 'start a slow build', description: calls([{ name: 'bash', input: { command, run_in_background: true } }]) });
  if (script) fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ alice: script }));
  await startDaemon(dir, { settings });
  expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  const paths = statePaths(dir);
  return {
    ws,
    dir,
    board,
    session: () => savedSessionText(paths.sessionFile('alice')),
    log: () => fs.readFileSync(paths.logFile('alice'), 'utf8'),
    jobs: async (): Promise<JobJson[]> => JSON.parse((await runTeamd(['jobs', '--dir', dir, '--json'])).stdout) as JobJson[],
  };
}

describe('background jobs in a running team', () => {
  it('the task completes while its job runs; the job ending wakes the idle teammate, whose next model call hears how it ended', async () => {
    const { ws, dir, board, session, log, jobs } = await team('while [ ! -f go ]; do sleep 0.05; done; echo built-ok; exit 4');
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'task 1 completed while the job runs');
    await waitFor(() => session().includes('Task 1 is finished.') || undefined, 'the turn that started the job to end');
    expect(board.get(1).result).toContain('started background job alice-1');
    const running = await waitForAsync(async () => (await jobs()).find((j) => j.state === 'running'), 'the job listed as running');
    expect(running.id).toBe('alice-1');
    const status = JSON.parse((await runTeamd(['status', '--dir', dir, '--json'])).stdout) as { jobs: { running: number; byTeammate: Record<string, number> } };
    expect(status.jobs).toEqual({ running: 1, byTeammate: { alice: 1 } });
    await waitFor(() => member(dir, 'alice')?.status === 'idle' || undefined, 'alice idle');
    const callsBefore = log()
      .split('\n')
      .filter((line) => line.includes('"turn ended"')).length;

    fs.writeFileSync(path.join(ws, 'go'), '');
    await waitFor(() => session().includes('[teamd:job id=alice-1 state=exited]') || undefined, 'the notice in the conversation');
    const notice = session()
      .split('\n')
      .find((line) => line.includes('[teamd:job id=alice-1'))!;
    expect(notice).toContain('exit code 4');
    expect(notice).toContain('built-ok');
    // The offline model read it in a new call (it answers a notice with "Noted").
    await waitFor(() => session().includes('Noted: background job alice-1 ended (exited)') || undefined, 'the model to answer the notice');
    // Its turn's end is logged just after the answer is saved: waited for, not assumed.
    await waitFor(
      () =>
        log()
          .split('\n')
          .filter((line) => line.includes('"turn ended"')).length > callsBefore || undefined,
      'the turn that read the notice to end',
    );
    expect((await jobs())[0]).toMatchObject({ id: 'alice-1', state: 'exited', exitCode: 4 });
    const listed = await runTeamd(['jobs', '--dir', dir]);
    expect(listed.stdout).toMatch(/alice-1\s+exited\s+4\s/);
  });

  it('the API failing when the notice is to be read (529, then 500): the notice stays in the conversation and is answered once the API is back', async () => {
    const go = 'while [ ! -f go ]; do sleep 0.05; done; echo done-in-background';
    const { ws, session, log } = await team(go, { modelRetryBaseMs: 500, modelRetryMaxMs: 1_000 }, [
      { toolUse: { name: 'bash', input: { command: go, run_in_background: true } } },
      { toolUse: { name: 'complete_task', input: { id: 1, result: 'started it' } } },
      { stopReason: 'end_turn', text: 'Started; going idle.' },
      { status: 529, times: 4 },
      { status: 500, times: 4 },
    ]);
    await waitFor(() => session().includes('Started; going idle.') || undefined, 'the turn that started the job to end');
    fs.writeFileSync(path.join(ws, 'go'), '');
    await waitFor(() => session().includes('Noted: background job alice-1 ended (exited)') || undefined, 'the notice answered after the outage', 60_000);
    expect(log()).toContain('model call failed');
    expect(
      session()
        .split('\n')
        .filter((line) => line.includes('[teamd:job id=alice-1')).length,
    ).toBe(1);
  });

  it('a job over its time limit is killed and reported timed out', async () => {
    const { session, jobs } = await team('sleep 30', { jobTimeoutMs: 1_000 });
    await waitFor(() => session().includes('[teamd:job id=alice-1 state=timed-out]') || undefined, 'the timed-out notice', 20_000);
    expect((await jobs())[0]).toMatchObject({ state: 'timed-out', note: 'it ran past its time limit of 1000 ms' });
  });

  it('killing the teammate kills its job; the restarted teammate is told the job was lost', async () => {
    const { dir, session, jobs } = await team('sleep 45');
    const job = await waitForAsync(async () => (await jobs()).find((j) => j.state === 'running'), 'the job running');
    const first = member(dir, 'alice')!.pid!;
    process.kill(first, 'SIGKILL');
    await waitFor(() => !isAlive(job.pid!) || undefined, 'the job killed with its teammate');
    await waitFor(() => (member(dir, 'alice')?.pid ?? first) !== first || undefined, 'alice restarted');
    await waitFor(() => session().includes('[teamd:job id=alice-1 state=lost]') || undefined, 'the lost notice');
    expect((await jobs())[0]).toMatchObject({ id: 'alice-1', state: 'lost' });
  });

  it('teamd jobs refuses an unknown teammate and shows nothing for a team without jobs', async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(path.join(dir, 'tasks'), { recursive: true });
    expect(await runTeamd(['jobs', '--dir', dir])).toMatchObject({ code: 0, stdout: 'no background jobs\n' });
    const unknown = await runTeamd(['jobs', '--teammate', 'zed', '--dir', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('teamd: zed is not on the team (see teamd team)\n');
  });
});
