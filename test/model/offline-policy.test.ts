import { describe, expect, it } from 'vitest';
import { messageDirective, resumeDirective, taskDirective } from '../../src/contracts/directives.js';
import { decideOffline, PLAN_REQUIRED_MARKER, shellCommands } from '../../src/model/offline/policy.js';
import { type Block, type OfflineRequest } from '../../src/model/offline/offline-types.js';

const task = { id: 4, subject: 'build', claim: 1, description: '```sh\nmkdir -p out\n# a comment\n\necho hi > out/a\n```' };
type Msg = OfflineRequest['messages'][number];
const user = (...content: Block[]): Msg => ({ role: 'user', content });
const assistant = (...content: Block[]): Msg => ({ role: 'assistant', content });
const t = (text: string) => ({ type: 'text' as const, text });
const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command } });
const result = (id: string, text: string, isError = false) => ({ type: 'tool_result' as const, tool_use_id: id, content: text, is_error: isError });

const decide = (messages: Msg[], system = '') =>
  decideOffline({ teammate: 'alice', system, tools: ['bash', 'complete_task', 'fail_task', 'send_message', 'submit_plan'], messages });

describe('the offline model', () => {
  it('reads the commands of the first sh block, skipping blanks and comments', () => {
    expect(shellCommands(task.description)).toEqual(['mkdir -p out', 'echo hi > out/a']);
  });

  it('runs each command with bash, one call per line, then completes the task with the outputs', () => {
    const first = decide([user(t(taskDirective(task)))]);
    expect(first.content[0]).toMatchObject({ type: 'tool_use', name: 'bash', input: { command: 'mkdir -p out' } });
    const second = decide([user(t(taskDirective(task))), assistant(bash('a', 'mkdir -p out')), user(result('a', 'exit code 0\n'))]);
    expect(second.content[0]).toMatchObject({ name: 'bash', input: { command: 'echo hi > out/a' } });
    const done = decide([
      user(t(taskDirective(task))),
      assistant(bash('a', 'mkdir -p out')),
      user(result('a', 'exit code 0\n')),
      assistant(bash('b', 'echo hi > out/a')),
      user(result('b', 'exit code 0\n')),
    ]);
    expect(done.content[0]).toMatchObject({ name: 'complete_task', input: { id: 4, result: expect.stringContaining('$ echo hi > out/a') } });
  });

  it('fails the task on the first non-zero exit', () => {
    const turn = decide([user(t(taskDirective(task))), assistant(bash('a', 'mkdir -p out')), user(result('a', 'exit code 1\nno space', true))]);
    expect(turn.content[0]).toMatchObject({ name: 'fail_task', input: { id: 4, reason: expect.stringContaining('no space') } });
  });

  it('after a restart, continues from the commands whose results were saved', () => {
    const turn = decide([user(t(taskDirective(task))), assistant(bash('a', 'mkdir -p out')), user(result('a', 'exit code 0\n'), t(resumeDirective(task)))]);
    expect(turn.content[0]).toMatchObject({ name: 'bash', input: { command: 'echo hi > out/a' } });
  });

  it('answers a message with one short reply to its sender, but never an automatic reply', () => {
    const message = { id: 'm', type: 'message' as const, from: 'bob', to: 'alice', content: 'can you review?', timestamp: '2026-01-01T00:00:00Z' };
    expect(decide([user(t(messageDirective(message)))]).content[0]).toMatchObject({
      name: 'send_message',
      input: { to: 'bob', content: 'Got it: can you review?' },
    });
    const auto = { ...message, content: 'Got it: hello' };
    expect(decide([user(t(messageDirective(auto)))]).stop_reason).toBe('end_turn');
  });

  it('asks for plan approval first when the plan is required, and waits', () => {
    const system = `rules ${PLAN_REQUIRED_MARKER}`;
    expect(decide([user(t(taskDirective(task)))], system).content[0]).toMatchObject({ name: 'submit_plan' });
    const waiting = decide(
      [user(t(taskDirective(task))), assistant({ type: 'tool_use', id: 'p', name: 'submit_plan', input: {} }), user(result('p', 'sent'))],
      system,
    );
    expect(waiting.stop_reason).toBe('end_turn');
  });

  it('goes idle with nothing to do', () => {
    expect(decide([user(t('hello'))]).stop_reason).toBe('end_turn');
  });
});
