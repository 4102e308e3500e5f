import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/contracts/task.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import type { ScriptStep } from '../../src/model/offline/script.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { savedSessionText } from '../helpers/session.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor, waitForAsync } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;
/** Fast settings: outages are waited out in half a second, stalls noticed after one. */
const FAST = { modelRetryBaseMs: 1_500, modelRetryMaxMs: 3_000, modelStallMs: 1_500 };

/** One teammate (alice) on the offline model scripted to misbehave first, and a board of tasks. */
async function team(steps: ScriptStep[], options: { tasks?: string[]; settings?: Record<string, unknown>; spawn?: boolean } = {}) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  for (const [i, description] of (options.tasks ?? [sh('echo ok > out.txt')]).entries()) await board.add({ subject: `task ${i + 1}`, description });
  fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ alice: steps }));
  await startDaemon(dir, { settings: { ...FAST, ...options.settings } });
  if (options.spawn !== false) expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  const paths = statePaths(dir);
  return {
    ws,
    dir,
    board,
    log: (name: string) => fs.readFileSync(paths.logFile(name), 'utf8'),
    session: () => savedSessionText(paths.sessionFile('alice')),
    lead: () => readInboxFrom(paths.inboxFile('lead'), 0).messages.map((m) => m.message),
    done: (id: number) => waitFor(() => terminal(board.get(id)), `task ${id} to finish`),
  };
}

function terminal(task: Task): Task | undefined {
  return task.status === 'completed' || task.status === 'failed' ? task : undefined;
}

/** Every user and assistant text block the session holds. */
function texts(session: string): string[] {
  return session
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .flatMap((line) => (JSON.parse(line) as { content: { type: string; text?: string }[] }).content.filter((b) => b.type === 'text').map((b) => b.text!));
}

describe('stop reasons a real model gives (offline endpoint, real SDK, streamed)', () => {
  it('pause_turn: the turn continues with the assistant content sent back, and the task completes', async () => {
    const { done, session, ws } = await team([{ stopReason: 'pause_turn', text: 'Let me look first' }]);
    expect((await done(1)).status).toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8')).toBe('ok\n');
    // One assistant turn holds the paused text and the call that continued it.
    const assistant = session()
      .split('\n')
      .filter((line) => line.includes('Let me look first'))
      .map((line) => JSON.parse(line) as { role: string; content: { type: string }[] });
    expect(assistant).toHaveLength(1);
    expect(assistant[0]!.role).toBe('assistant');
    expect(assistant[0]!.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
  });

  it('refusal: the task fails with the refusal as its reason, the lead gets one notice, and the teammate goes on with other work', async () => {
    const { dir, done, lead, board } = await team([{ stopReason: 'refusal', text: 'I cannot help with that request.' }], {
      tasks: [sh('echo one > one.txt'), sh('echo two > two.txt')],
    });
    const refused = await done(1);
    expect(refused.status).toBe('failed');
    expect(refused.result).toContain('the model refused: I cannot help with that request.');
    expect((await done(2)).status).toBe('completed');
    expect(lead().filter((m) => m.content.includes('refused'))).toHaveLength(1);
    // Put back on the board by the lead, it is not offered to alice again; bob takes it.
    expect((await runTeamd(['task', 'release', '1', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['spawn', 'bob', 'coder', '--dir', dir])).code).toBe(0);
    expect(await waitFor(() => terminal(board.get(1)), 'task 1 done again')).toMatchObject({ status: 'completed', owner: 'bob' });
  });

  it('an end_turn without finishing: reminded, then the task completes', async () => {
    const { done, session } = await team([{ stopReason: 'end_turn', text: 'I will get to it.' }]);
    expect((await done(1)).status).toBe('completed');
    expect(texts(session()).some((t) => t.startsWith('[teamd:remind task=1]'))).toBe(true);
  });

  it('a model that keeps ending its turn: two reminders, then the task goes back to the board with a notice, and another teammate does it', async () => {
    const { dir, board, lead, session } = await team([{ stopReason: 'end_turn', text: 'Not now.', times: 3 }]);
    await waitFor(() => lead().find((m) => m.from === 'alice' && m.content.includes('gave task 1 back')), 'the notice to the lead');
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
    expect(texts(session()).filter((t) => t.startsWith('[teamd:remind task=1]'))).toHaveLength(2);
    await waitFor(() => member(dir, 'alice')?.status === 'idle' && member(dir, 'alice')?.task === null, 'alice idle without a task');
    // alice does not take it again; bob does.
    expect((await runTeamd(['spawn', 'bob', 'coder', '--dir', dir])).code).toBe(0);
    const task = await waitFor(() => terminal(board.get(1)), 'task 1 done by bob');
    expect(task).toMatchObject({ status: 'completed', owner: 'bob' });
  });

  it('whitespace-only text is never stored, so no later request is refused', async () => {
    const { done, session, log } = await team([{ stopReason: 'end_turn', text: '  \n\t ' }], { tasks: [sh('echo a'), sh('echo b')] });
    expect((await done(1)).status).toBe('completed');
    expect((await done(2)).status).toBe('completed');
    expect(texts(session()).every((t) => t.trim().length > 0)).toBe(true);
    expect(log('daemon')).not.toContain('would refuse');
  });

  it('max_tokens mid-text is continued; max_tokens inside a tool call does not run the cut-off call', async () => {
    const { done, ws, session, log } = await team([
      { stopReason: 'max_tokens', text: 'I will now run the comm' },
      { stopReason: 'max_tokens', truncatedToolUse: { name: 'bash', input: { command: 'touch truncated-call-ran-with-a-long-name' } } },
    ]);
    expect((await done(1)).status).toBe('completed');
    expect(fs.readdirSync(ws).filter((f) => f.startsWith('trunc'))).toEqual([]);
    expect(session()).toContain('[teamd:continue]');
    expect(session()).toContain('so it was not run');
    expect(log('daemon')).not.toContain('would refuse');
  });
});

describe('model errors after the SDK retries', () => {
  it('error events mid-answer, which the SDK does not retry, are retried in the call as it retries a 529; what streamed before them is not kept', async () => {
    const { done, session, log } = await team([{ streamError: 'overloaded_error', text: 'PARTIAL-ANSWER-BEFORE-THE-ERROR', times: 2 }]);
    const task = await done(1);
    // Never put back on the board: claimed once, and no back-off.
    expect(task).toMatchObject({ status: 'completed', owner: 'alice', claim: 1 });
    const retries = log('alice')
      .split('\n')
      .filter((line) => line.includes('model call failed mid-answer; retrying'));
    expect(retries.map((line) => (JSON.parse(line) as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(log('alice')).not.toContain('model unavailable');
    expect(session()).not.toContain('PARTIAL-ANSWER-BEFORE-THE-ERROR');
    expect(log('daemon')).not.toContain('would refuse');
  });

  it('a model that keeps failing: the waits grow, the person is told once for the episode (at the third failure in a row, not the fourth), and the task is done when it answers (issue 47)', async () => {
    // Each failure is a call and the SDK's two retries: four failures in a row, then answers.
    const { done, lead, log } = await team([{ status: 529, times: 12 }], { settings: { modelRetryBaseMs: 100, modelRetryMaxMs: 400 } });
    expect((await done(1)).status).toBe('completed');
    const notices = lead().filter((m) => m.from === 'alice' && m.content.includes('The model API failed'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.content).toMatch(
      /^The model API failed 3 times in a row \(last: .*529.*\)\. Task 1 is back on the board\. I try again in \d+ s, waiting longer each time/,
    );
    expect(log('alice').match(/model unavailable; backing off/g)).toHaveLength(4);
  });

  it.each<[string, ScriptStep[]]>([
    ['429s for 3 s', [{ status: 429, forMs: 3_000 }]],
    ['529s past the retries', [{ status: 529, times: 4 }]],
    ['500s past the retries', [{ status: 500, times: 4 }]],
    ['dropped connections', [{ drop: true, times: 4 }]],
    ['a stalled stream', [{ stall: true }]],
    ['overloaded_error events mid-answer past the retries', [{ streamError: 'overloaded_error', text: 'Half an answer, then', times: 3 }]],
    ['api_error events mid-answer past the retries', [{ streamError: 'api_error', times: 3 }]],
    ['answers cut off by a reset connection past the retries', [{ cutMidAnswer: 'reset', text: 'Half an answer, then', times: 3 }]],
    ['streams ended before message_stop past the retries', [{ cutMidAnswer: 'end', times: 3 }]],
  ])('%s: the task goes back to the board (never failed), the teammate backs off with the reason in status, then does it', async (_name, steps) => {
    const { dir, done, board, lead } = await team(steps);
    // The wait is short here: ask status until it shows one (the roster says when it began and ends).
    const shown = await waitForAsync(async () => {
      const status = await runTeamd(['status', '--json', '--dir', dir]);
      const json = JSON.parse(status.stdout) as { members: { name: string; problem: string | null; retryAt: string | null }[]; needsYou: string[] };
      return json.needsYou.some((line) => line.startsWith('alice waits:')) ? json : undefined;
    }, 'teamd status to show alice waiting out the outage');
    expect(shown.members[0]).toMatchObject({ problem: expect.stringMatching(/^model unavailable: /), retryAt: expect.any(String) });
    expect(shown.needsYou.find((line) => line.startsWith('alice waits:'))).toMatch(
      /^alice waits: model unavailable: .*; next try at \d\d:\d\d:\d\d UTC \(in \d+ s\)$/,
    );
    expect((await done(1)).status).toBe('completed');
    expect(board.get(1).result).not.toContain('model error');
    expect(lead().filter((m) => m.type === 'task_failed')).toEqual([]);
    await waitFor(() => member(dir, 'alice')?.problem === null, 'the problem cleared once the model answers');
  });

  it('a 429 with a retry-after over a minute is not waited out inside the call: the task goes back at once and status shows the wait', async () => {
    const { dir, board } = await team([{ status: 429, retryAfterSeconds: 90 }]);
    const waiting = await waitForAsync(async () => {
      const status = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { needsYou: string[] };
      return status.needsYou.find((line) => line.startsWith('alice waits:'));
    }, 'teamd status to show alice waiting');
    const seconds = Number(/\(in (\d+) s\)$/.exec(waiting)?.[1]);
    expect(seconds).toBeGreaterThan(60);
    expect(seconds).toBeLessThanOrEqual(90);
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
  });

  it("429s past the SDK's retries: the teammate then waits the last answer's retry-after (8 s), not its shorter back-off (1.5 s)", async () => {
    // The SDK waits each retry-after itself (8 s, twice); the third 429 it gives up on.
    const { dir, board } = await team([{ status: 429, retryAfterSeconds: 8, times: 3 }]);
    const waiting = await waitForAsync(
      async () => {
        const status = JSON.parse((await runTeamd(['status', '--json', '--dir', dir])).stdout) as { needsYou: string[] };
        return status.needsYou.find((line) => line.startsWith('alice waits:'));
      },
      'teamd status to show alice waiting',
      60_000,
    );
    const seconds = Number(/\(in (\d+) s\)$/.exec(waiting)?.[1]);
    expect(seconds).toBeGreaterThan(2);
    expect(seconds).toBeLessThanOrEqual(8);
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
  }, 90_000);

  it.each<[number, RegExp]>([
    [401, /API key was refused/],
    [403, /may not use offline/],
    [404, /unknown model offline/],
  ])(
    '%i: the teammate stops taking work (errored, with the reason), its task goes back, the lead gets one notice, no other task is touched',
    async (status, reason) => {
      const { dir, board, lead } = await team([{ status } as ScriptStep], { tasks: [sh('echo one'), sh('echo two')] });
      await waitFor(() => member(dir, 'alice')?.status === 'errored', 'alice errored');
      expect(member(dir, 'alice')?.problem).toMatch(reason);
      expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
      expect(board.get(2)).toMatchObject({ status: 'pending', owner: null, claim: 0 });
      const notices = lead().filter((m) => m.from === 'alice');
      expect(notices).toHaveLength(1);
      expect(notices[0]!.content).toMatch(reason);
      const shown = await runTeamd(['status', '--dir', dir]);
      expect(shown.stdout).toMatch(/alice is errored and takes no work: .*(API key|may not use|unknown model)/);
    },
  );

  it('prompt too long is compacted, then rebuilt; refused a third time, that task fails and the next one completes', async () => {
    const { done, log } = await team([{ status: 400, promptTooLong: true, times: 3 }], { tasks: [sh('echo one'), sh('echo two')] });
    expect((await done(1)).status).toBe('failed');
    expect((await done(2)).status).toBe('completed');
    expect(log('alice')).toContain('"how":"rebuilt"');
  });

  it('one command whose output alone would overflow the context window: the output is kept aside, and the task completes', async () => {
    const { done, log, session } = await team([], { tasks: [sh('seq 1000 11500')], settings: { offlineContextTokens: 12_000 } });
    expect((await done(1)).status).toBe('completed');
    expect(session()).toContain('teamd-output:');
    expect(log('daemon')).not.toContain('would refuse');
  });

  it('a conversation overflowing inside one task is summarized with the cut inside the task, and the task completes, each command once', async () => {
    const { ws, done, log } = await team([], {
      tasks: [sh(...Array.from({ length: 40 }, (_, i) => `echo ${i} >> progress.txt; seq 1 300`))],
      settings: { compactThresholdTokens: 5_000, offlineContextTokens: 10_000 },
    });
    expect((await done(1)).status).toBe('completed');
    expect(log('alice')).toContain('"how":"summarized"');
    expect(fs.readFileSync(path.join(ws, 'progress.txt'), 'utf8')).toBe(Array.from({ length: 40 }, (_, i) => `${i}\n`).join(''));
    expect(log('daemon')).not.toContain('would refuse');
  });
  it("a summary keeps the task's progress: the task in full and its plan (todo_write) come right after it, and the last results stay (issue 47)", async () => {
    const plan = {
      name: 'todo_write',
      input: {
        items: [
          { content: 'count to forty', status: 'in_progress', activeForm: 'Counting' },
          { content: 'report the count', status: 'pending', activeForm: 'Reporting' },
        ],
      },
    };
    const bash = Array.from({ length: 30 }, (_, i) => ({ name: 'bash', input: { command: `echo ${i} >> progress.txt; seq 1 300` } }));
    const { ws, done, log, session } = await team([], {
      tasks: [`\`\`\`teamd-calls\n${JSON.stringify([plan, ...bash])}\n\`\`\``],
      settings: { compactThresholdTokens: 5_000 },
    });
    expect((await done(1)).status).toBe('completed');
    expect(log('alice')).toContain('"how":"summarized"');
    const first = texts(session()).find((t) => t.startsWith('[teamd:resume task=1]\nYour conversation was shortened'));
    expect(first).toContain('Your plan for it (todo_write), as it stands:\n- [in_progress] count to forty\n- [pending] report the count');
    expect(fs.readFileSync(path.join(ws, 'progress.txt'), 'utf8')).toBe(Array.from({ length: 30 }, (_, i) => `${i}\n`).join(''));
  });
});

describe('work in flight, messages, the current task, plans', () => {
  it('teamd stop while a model call is in flight leaves the task with the teammate, and the next start resumes it', async () => {
    const { dir, board, log, done } = await team([{ stall: true }], { settings: { modelStallMs: 60_000 } });
    await waitFor(() => log('daemon').includes('"stall":true'), 'the stalled call under way');
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(board.get(1)).toMatchObject({ status: 'in_progress', owner: 'alice' });
    // A new daemon replays the script from its start: this time the model answers.
    fs.writeFileSync(path.join(dir, 'offline-script.json'), '{}');
    await startDaemon(dir);
    expect((await done(1)).status).toBe('completed');
    expect(board.get(1).owner).toBe('alice');
  });

  it('teamd shutdown past its grace while a call is in flight puts the task back on the board, not failed', async () => {
    const { dir, board, log } = await team([{ stall: true }], { settings: { modelStallMs: 60_000, ipcGraceMs: 300, termGraceMs: 2_000 } });
    await waitFor(() => log('daemon').includes('"stall":true'), 'the stalled call under way');
    expect((await runTeamd(['shutdown', 'alice', '--dir', dir])).code).toBe(0);
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
    expect(member(dir, 'alice')?.status).toBe('shutdown');
  });

  it('a message sent mid-task reaches the teammate before its next model call, not after the task', async () => {
    const { ws, dir, lead, done, session } = await team([], { tasks: [sh('touch started', 'while [ ! -f go ]; do sleep 0.05; done', 'echo finished')] });
    await waitFor(() => fs.existsSync(path.join(ws, 'started')), 'alice inside the first command');
    expect((await runTeamd(['send', 'alice', 'are you on it?', '--dir', dir])).code).toBe(0);
    fs.writeFileSync(path.join(ws, 'go'), '');
    expect((await done(1)).status).toBe('completed');
    await waitFor(() => lead().find((m) => m.type === 'task_completed'), 'the completion notice');
    const replies = lead().map((m) => (m.type === 'task_completed' ? 'completed' : m.content));
    const reply = replies.indexOf('Got it: are you on it?');
    expect(reply).toBeGreaterThanOrEqual(0);
    expect(reply).toBeLessThan(replies.indexOf('completed'));
    // It rode inside the tool result (never as text after tool results in one user turn).
    expect(session()).toMatch(/"tool_result".*\[teamd:message from=lead/);
  });

  it('once a task is completed, the roster, status and the re-injected identity all say the teammate has no task', async () => {
    const { dir, done, session, lead } = await team([], { settings: { compactThresholdTokens: 400 } });
    expect((await done(1)).status).toBe('completed');
    await waitFor(() => member(dir, 'alice')?.task === null, 'the roster without task 1');
    expect((await runTeamd(['send', 'alice', 'anything else?', '--dir', dir])).code).toBe(0);
    await waitFor(() => lead().find((m) => m.content === 'Got it: anything else?'), 'the reply');
    expect(member(dir, 'alice')?.task).toBeNull();
    // The reply leaves while its step is still being saved: read the session once that step is in it.
    await waitFor(() => session().includes('sent to lead'), 'the step that sent the reply, saved');
    const identities = texts(session()).filter((t) => t.startsWith('[teamd:identity]'));
    expect(identities.at(-1), session()).toContain('You have no task right now');
  });

  it('plan approval belongs to one task: the second task of a --plan teammate needs its own approved plan', async () => {
    const { dir, board, lead, done } = await team([], { tasks: [sh('echo one > one.txt'), sh('echo two > two.txt')], spawn: false });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--plan', '--dir', dir])).code).toBe(0);
    const first = await waitFor(() => lead().find((m) => m.type === 'plan_approval_request'), 'the first plan');
    expect((await runTeamd(['approve', first.requestId!, '--dir', dir])).code).toBe(0);
    expect((await done(1)).status).toBe('completed');
    const second = await waitFor(() => lead().filter((m) => m.type === 'plan_approval_request')[1], 'a second plan, for task 2');
    expect(second.content).toContain('Task 2');
    await waitFor(() => member(dir, 'alice')?.status === 'waiting-plan', 'alice waiting for the answer');
    expect(board.get(2)).toMatchObject({ status: 'in_progress', owner: 'alice' });
    expect((await runTeamd(['approve', second.requestId!, '--dir', dir])).code).toBe(0);
    expect((await done(2)).status).toBe('completed');
  });
});

describe('teamd-calls: any tool driven end to end', () => {
  const calls = (value: unknown) => `\`\`\`teamd-calls\n${typeof value === 'string' ? value : JSON.stringify(value)}\n\`\`\``;

  it('issues the calls in order and completes the task with their outputs', async () => {
    const { ws, done } = await team([], {
      tasks: [
        calls([
          { name: 'write_file', input: { path: 'notes/a.txt', content: 'alpha\n' } },
          { name: 'read_file', input: { path: 'notes/a.txt' } },
          { name: 'read_file', input: { path: 'missing.txt' }, allowError: true },
        ]),
      ],
    });
    const task = await done(1);
    expect(task.status).toBe('completed');
    expect(task.result).toContain('alpha');
    expect(fs.readFileSync(path.join(ws, 'notes/a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('invalid JSON or an unknown tool fails that task with a reason naming it; the other tasks are done', async () => {
    const { done } = await team([], { tasks: [calls('[{"name": "bash", '), calls([{ name: 'launch_rockets', input: {} }]), sh('echo fine')] });
    const broken = await done(1);
    expect(broken).toMatchObject({ status: 'failed' });
    expect(broken.result).toMatch(/^task 1: its teamd-calls block is not valid JSON/);
    const unknown = await done(2);
    expect(unknown.result).toMatch(/^task 2: its teamd-calls block names an unknown tool "launch_rockets"/);
    expect((await done(3)).status).toBe('completed');
  });
});

describe('a scripted step that cannot be played', () => {
  it('a scripted call of an unknown tool is reported in the daemon log, naming the file, and skipped; the task completes', async () => {
    const { done, log } = await team([{ toolUse: { name: 'launch_rockets', input: {} } }]);
    expect((await done(1)).status).toBe('completed');
    expect(log('daemon')).toMatch(/offline-script\.json: a step for alice calls the unknown tool \\"launch_rockets\\"/);
  });
});

describe('a saved conversation the API would refuse', () => {
  it('is repaired when the teammate starts (a call without its result, blank text), and the next task completes', async () => {
    const { dir, done, log } = await team([], { spawn: false });
    const header = {
      teamdSession: 1,
      handled: [],
      approvedPlan: null,
      planRequests: [],
      gaveUp: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    const lines = [
      header,
      {
        role: 'user',
        content: [
          { type: 'text', text: 'earlier' },
          { type: 'text', text: '  ' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_dangling', name: 'bash', input: { command: 'true' } }] },
    ];
    fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(statePaths(dir).sessionFile('alice'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, { mode: 0o600 });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    expect((await done(1)).status).toBe('completed');
    expect(log('alice')).toContain('repaired the saved conversation');
    expect(log('daemon')).not.toContain('would refuse');
  });
});

describe('every repeat has a reason to stop (issue 47)', () => {
  it('a task given back after three text-only ends does not wake its teammate again at each idle timeout; a new task does, at once', async () => {
    const { dir, board, lead } = await team([{ stopReason: 'end_turn', text: 'Not now.', times: 3 }], { settings: { idleTimeoutMs: 300 } });
    await waitFor(() => lead().find((m) => m.from === 'alice' && m.content.includes('gave task 1 back')), 'the notice to the lead');
    expect(board.get(1)).toMatchObject({ status: 'pending', owner: null });
    await waitFor(() => member(dir, 'alice')?.status === 'asleep' || undefined, 'alice asleep');
    const asleep = member(dir, 'alice')!;
    expect(asleep.declined).toEqual([1]);
    // The daemon looks at the board again and again (each look marks run/board-looked): task 1 is ready at every look.
    const marker = statePaths(dir).boardLooked;
    const since = Date.now();
    await waitFor(() => fs.statSync(marker).mtimeMs > since, "the daemon's next look");
    const next = fs.statSync(marker).mtimeMs;
    await waitFor(() => fs.statSync(marker).mtimeMs > next, 'the look after it', 20_000);
    expect(member(dir, 'alice')).toMatchObject({ status: 'asleep', startedAt: asleep.startedAt });
    // Something new wakes her, and she takes it.
    await board.add({ subject: 'another', description: sh('echo other') });
    await waitFor(() => board.get(2).status === 'completed' || undefined, 'task 2 done by alice');
    expect(board.get(2).owner).toBe('alice');
    // The daemon saw task 2 beside the declined task 1 and woke her for it (it saw task 1 alone, and never woke her).
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).toMatch(/"teammate":"alice".*"msg":"waking teammate: work appeared"/);
  });

  it('a prompt too long, sized by the window the API stated: compacted once, the task completes, its earlier results kept (not rebuilt)', async () => {
    // The threshold is the default (150,000): only the API's stated window (10,000) can size the cut.
    const { ws, done, log, session } = await team([], {
      tasks: [sh(...Array.from({ length: 40 }, (_, i) => `echo ${i} >> progress.txt; seq 1 300`))],
      settings: { offlineContextTokens: 10_000 },
    });
    expect((await done(1)).status).toBe('completed');
    expect(log('alice')).toContain('"how":"summarized"');
    expect(log('alice')).not.toContain('"how":"rebuilt"');
    expect(fs.readFileSync(path.join(ws, 'progress.txt'), 'utf8')).toBe(Array.from({ length: 40 }, (_, i) => `${i}\n`).join(''));
    // The latest tool results are still in the conversation, after the summary.
    expect(session()).toContain('echo 39 >> progress.txt');
  });

  it('a 413 (the request too large) compacts and tries again: the task completes and the conversation is kept', async () => {
    const { done, log } = await team([{ status: 413 }], { tasks: [sh('echo one', 'echo two')] });
    const task = await done(1);
    expect(task.status, task.result ?? '').toBe('completed');
    expect(log('alice')).not.toContain('the model API refused this conversation');
  });
});

describe('a stop is a pause, not a failure (issue 47)', () => {
  it('teamd stop while a command runs, then teamd start: the task stays with the teammate, the command runs again, and the task completes', async () => {
    const line = 'touch "started-$(date +%s%N)"; while [ ! -e go ]; do sleep 0.05; done; echo ran >> ran.txt';
    const { ws, dir, board, done } = await team([], { tasks: [sh(line)] });
    const started = () => fs.readdirSync(ws).filter((name) => name.startsWith('started-')).length;
    await waitFor(() => started() === 1 || undefined, 'the command under way');
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(board.get(1)).toMatchObject({ status: 'in_progress', owner: 'alice' });
    await startDaemon(dir);
    await waitFor(() => started() === 2 || undefined, 'the command started again');
    fs.writeFileSync(path.join(ws, 'go'), '');
    const task = await done(1);
    expect(task.status, task.result ?? '').toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'ran.txt'), 'utf8')).toBe('ran\n');
  });
});
