import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/contracts/model.js';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { emptySession, SessionStore } from '../../src/teammate/session-store.js';
import { taskTurns } from '../../src/ui/ui-turns.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const told = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (id: string, command: string, said = ''): ChatMessage =>
  ({
    role: 'assistant',
    content: [...(said ? [{ type: 'text', text: said }] : []), { type: 'tool_use', id, name: 'bash', input: { command } }],
  }) as ChatMessage;
const result = (id: string, text: string, error = false): ChatMessage => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: text, is_error: error }],
});

describe("a task's conversation on its page, from its teammate's session file (as the teammate writes it)", () => {
  it("shows the part about the task: the directive that handed it over, a resume, the model's words, calls and results; not the other tasks'", () => {
    const paths = statePaths(makeTempDir('teamd-turns-'));
    fs.mkdirSync(paths.sessionsDir, { recursive: true });
    const session = emptySession();
    session.messages.push(
      told('[teamd:task id=1]\nYou claimed task 1 (claim 1): one'),
      calls('a', 'echo one'),
      result('a', 'one'),
      told('[teamd:task id=2]\nYou claimed task 2 (claim 1): two'),
      calls('b', 'make', 'Building it.'),
      result('b', 'make: *** No rule', true),
      told('[teamd:resume task=2]\nYou were restarted. You still own task 2: two'),
      calls('c', 'make all'),
      result('c', 'ok'),
      told('[teamd:task id=3]\nYou claimed task 3 (claim 1): three'),
      calls('d', 'echo three'),
    );
    new SessionStore(paths.sessionFile('alice'), createLogger()).rewrite(session);
    const { turns, note } = taskTurns(paths, 'alice', 2);
    expect(note).toBeNull();
    expect(turns.map((turn) => [turn.kind, turn.tool ?? null, turn.error ?? false])).toEqual([
      ['told', null, false],
      ['said', null, false],
      ['call', 'bash', false],
      ['result', 'bash', true],
      ['told', null, false],
      ['call', 'bash', false],
      ['result', 'bash', false],
    ]);
    expect(turns[2]!.text).toBe('{"command":"make"}');
    expect(turns.map((turn) => turn.text).join('\n')).not.toMatch(/echo one|echo three/);
  });

  it('says in one line why a session file is not shown, and shows nothing for a teammate without one', () => {
    const paths = statePaths(makeTempDir('teamd-turns-'));
    fs.mkdirSync(paths.sessionsDir, { recursive: true });
    expect(taskTurns(paths, 'nobody', 1)).toEqual({ turns: [], note: null });
    expect(taskTurns(paths, null, 1)).toEqual({ turns: [], note: null });
    fs.writeFileSync(paths.sessionFile('bob'), '{"not": "a session"}\n');
    const { turns, note } = taskTurns(paths, 'bob', 1);
    expect(turns).toEqual([]);
    expect(note).toMatch(/^bob's conversation cannot be read: /);
    // Read-only: the file is left where it is.
    expect(fs.readFileSync(paths.sessionFile('bob'), 'utf8')).toBe('{"not": "a session"}\n');
    // A FIFO put where the file was is not waited on.
    fs.rmSync(paths.sessionFile('bob'));
    execFileSync('mkfifo', [paths.sessionFile('bob')]);
    expect(taskTurns(paths, 'bob', 1).note).toMatch(/^bob's conversation is not shown: /);
  });
});
