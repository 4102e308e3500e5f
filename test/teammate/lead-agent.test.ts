import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestDaemon } from '../../src/daemon/control-client.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import type { ScriptStep } from '../../src/model/offline/script.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { recordedRequests } from '../helpers/recorded-requests.js';
import { savedSessionText } from '../helpers/session.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

async function teamWithLead(script: ScriptStep[], settings: Record<string, unknown> = {}) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ lead: script }));
  const record = path.join(ws, 'requests.jsonl');
  await startDaemon(dir, { env: { TEAMD_OFFLINE_RECORD: record }, settings });
  const paths = statePaths(dir);
  const started = (await requestDaemon(paths, { op: 'lead' })) as { started: boolean };
  expect(started.started).toBe(true);
  return { ws, dir, board, paths, requests: () => recordedRequests(record), session: () => savedSessionText(paths.sessionFile('lead')) };
}

function inbox(paths: ReturnType<typeof statePaths>, name: string) {
  return readInboxFrom(paths.inboxFile(name), 0).messages.map((m) => m.message);
}

describe('the lead agent', () => {
  it('is the member lead: it staffs the team, creates tasks, never claims one, and reports to the person', async () => {
    const t = await teamWithLead([
      { toolUse: { name: 'spawn_teammate', input: { name: 'alice', role: 'coder' } } },
      { toolUse: { name: 'create_task', input: { subject: 'build', description: '```sh\necho built\n```' } } },
      { toolUse: { name: 'list_teammates', input: {} } },
      { toolUse: { name: 'report', input: { content: 'alice builds it', final: true } } },
      { stopReason: 'end_turn', text: 'Waiting for the team.' },
    ]);
    expect((await runTeamd(['send', 'lead', 'build the thing', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    // The lead creates task 1: until then there is none.
    const done = () => {
      try {
        return t.board.get(1).status === 'completed' || undefined;
      } catch {
        return undefined;
      }
    };
    await waitFor(done, 'task 1 done');
    expect(t.board.get(1).owner).toBe('alice');
    expect(member(t.dir, 'lead')).toMatchObject({ role: 'lead' });
    expect(member(t.dir, 'alice')).toMatchObject({ role: 'coder' });
    // Its tools: the lead's, without bash, file writes or claims.
    // Scripted answers are not recorded: this is its request after alice's report of task 1 woke it.
    const first = await waitFor(() => t.requests().find((r) => r.teammate === 'lead'), "the lead's request");
    expect(first.tools).toEqual(
      expect.arrayContaining([
        'spawn_teammate',
        'shutdown_teammate',
        'create_task',
        'review_plan',
        'answer_permission',
        'report',
        'list_teammates',
        'cancel_task',
      ]),
    );
    for (const tool of ['bash', 'write_file', 'edit_file', 'claim_task', 'complete_task']) expect(first.tools).not.toContain(tool);
    expect(first.system).toContain('You are the lead of the team');
    await waitFor(() => t.session().includes('alice (coder)') || undefined, 'list_teammates in the session');
    const reports = await waitFor(() => {
      const found = readInboxFrom(t.paths.inboxFile('user'), 0).messages.map((m) => m.message);
      return found.length > 0 ? found : undefined;
    }, 'the report');
    expect(reports[0]).toMatchObject({ from: 'lead', to: 'user', content: 'alice builds it', report: 'final' });
    // It reads lead.jsonl with its own cursor: the person's is untouched.
    expect(fs.existsSync(t.paths.leadAgentCursor)).toBe(true);
    expect(fs.existsSync(t.paths.cursorFile('lead'))).toBe(false);
    // Started again: left as it is.
    expect(((await requestDaemon(t.paths, { op: 'lead' })) as { started: boolean }).started).toBe(false);
  });

  it('request_plan: a teammate spawned without --plan submits a plan for that task and changes nothing until it is approved (issue 47)', async () => {
    const t = await teamWithLead(
      [
        { toolUse: { name: 'spawn_teammate', input: { name: 'alice', role: 'coder' } } },
        { toolUse: { name: 'request_plan', input: { teammate: 'alice', task: 2, note: 'Tell me which files you touch.' } } },
        { stopReason: 'end_turn', text: 'Asked alice for a plan.' },
      ],
      // The person answers plans here: the lead's own review is refused.
      { leadAnswers: { plans: false } },
    );
    // Task 2 waits for task 1, which someone else holds: the plan is asked for before alice can take it.
    await t.board.add({ subject: 'blocker', description: 'held elsewhere' });
    await t.board.add({ subject: 'careful', description: '```sh\necho done > careful.txt\n```', blockedBy: [1] });
    const blocker = await t.board.claim(1, 'someone');
    expect((await runTeamd(['send', 'lead', 'go', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => t.session().includes('asked alice for a plan for task 2') || undefined, 'request_plan done');
    const asked = await waitFor(() => inbox(t.paths, 'alice').find((m) => m.planFor === 2), "the request in alice's inbox");
    expect(asked).toMatchObject({ from: 'lead', content: 'Tell me which files you touch.', taskId: 2 });
    await waitFor(() => savedSessionText(t.paths.sessionFile('alice')).includes('plan=2') || undefined, 'alice took the request in');
    await t.board.complete(1, { owner: 'someone', claim: blocker.claim });
    const request = await waitFor(() => inbox(t.paths, 'lead').find((m) => m.type === 'plan_approval_request' && m.from === 'alice'), "alice's plan");
    expect(request).toMatchObject({ taskId: 2, claim: 1 });
    await waitFor(() => member(t.dir, 'alice')?.status === 'waiting-plan' || undefined, 'alice waiting for the approval');
    expect(fs.existsSync(path.join(t.ws, 'careful.txt'))).toBe(false);
    expect(t.board.get(2)).toMatchObject({ status: 'in_progress', owner: 'alice' });
    const approved = await runTeamd(['approve', request.requestId!, '--dir', t.dir]);
    expect(approved.code, approved.stderr).toBe(0);
    await waitFor(() => t.board.get(2).status === 'completed', 'task 2 done after the approval');
    expect(fs.readFileSync(path.join(t.ws, 'careful.txt'), 'utf8')).toBe('done\n');
  });

  it('request_plan refuses an unknown teammate and the lead itself, in words the lead reads', async () => {
    const t = await teamWithLead([
      { toolUse: { name: 'request_plan', input: { teammate: 'nobody', task: 1 } } },
      { toolUse: { name: 'request_plan', input: { teammate: 'lead', task: 1 } } },
      { stopReason: 'end_turn', text: 'Done.' },
    ]);
    await t.board.add({ subject: 'x', description: 'y' });
    expect((await runTeamd(['send', 'lead', 'go', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => t.session().includes('you review plans') || undefined, 'both refusals');
    expect(t.session()).toContain('no teammate named nobody');
  });

  it('review_plan with a request id that names no request is an error the lead reads', async () => {
    const t = await teamWithLead([{ toolUse: { name: 'review_plan', input: { requestId: 'abcd', approve: true } } }]);
    expect((await runTeamd(['send', 'lead', 'hello', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => t.session().includes('no request') || t.session().includes('abcd') || undefined, 'the answer');
    expect(t.session()).toMatch(/"is_error":true/);
  });

  it('the settings may widen its tools (leadTools)', async () => {
    const t = await teamWithLead([], { leadTools: ['bash', 'write_file'] });
    expect((await runTeamd(['send', 'lead', 'hello', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    const request = await waitFor(() => t.requests().find((r) => r.teammate === 'lead'), "the lead's request");
    expect(request.tools).toEqual(expect.arrayContaining(['bash', 'write_file', 'spawn_teammate']));
    expect(request.tools).not.toContain('edit_file');
  });

  it('the names lead and user are not for teammates', async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    await startDaemon(dir);
    for (const name of ['lead', 'user']) {
      const spawned = await runTeamd(['spawn', name, 'coder', '--dir', dir]);
      expect(spawned.code).toBe(2);
      expect(spawned.stderr).toContain(`the name "${name}" is reserved`);
    }
  });
});

describe('a lead whose model refuses (issue 47)', () => {
  it('is not asked again at each start: the person gets one "could not answer", and nothing more until something new arrives', async () => {
    const t = await teamWithLead([{ stopReason: 'refusal', text: 'I cannot help with that.', times: 5 }], { idleTimeoutMs: 300 });
    expect((await runTeamd(['send', 'lead', 'plan the release', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    // The lead agent tells the person: the user's inbox.
    const notices = () =>
      (fs.existsSync(t.paths.inboxFile('user')) ? readInboxFrom(t.paths.inboxFile('user'), 0).messages : [])
        .map((m) => m.message)
        .filter((m) => m.from === 'lead' && m.content.includes('could not answer'));
    await waitFor(() => notices().length > 0 || undefined, 'the notice to the person');
    await waitFor(() => member(t.dir, 'lead')?.status === 'asleep' || undefined, 'the lead asleep');
    // Two looks of the daemon later (each marks run/board-looked), with the lead asleep through its idle timeouts.
    const since = Date.now();
    await waitFor(() => fs.statSync(t.paths.boardLooked).mtimeMs > since, "the daemon's next look");
    const next = fs.statSync(t.paths.boardLooked).mtimeMs;
    await waitFor(() => fs.statSync(t.paths.boardLooked).mtimeMs > next, 'the look after it', 20_000);
    expect(notices()).toHaveLength(1);
    // Something new: the person writes again, and the lead is asked again (and refuses again: a second notice).
    expect((await runTeamd(['send', 'lead', 'are you there?', '--from', 'user', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => notices().length === 2 || undefined, 'the second notice, for the new message');
  });
});
