import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../src/model/offline/script.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { savedSessionText } from '../helpers/session.js';
import { recordedRequests } from '../helpers/recorded-requests.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const sh = (...lines: string[]) => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

/** alice with one task (nothing to run of its own) and a script for her first answers; helpers answer by the offline policy. */
async function team(script: ScriptStep[]) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  await board.add({ subject: 'use helpers', description: 'Look around with helpers, then finish.' });
  fs.writeFileSync(path.join(dir, 'offline-script.json'), JSON.stringify({ alice: script }));
  const record = path.join(ws, 'requests.jsonl');
  await startDaemon(dir, { env: { TEAMD_OFFLINE_RECORD: record } });
  expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  await waitFor(() => board.get(1).status === 'completed' || undefined, 'task 1 done');
  const requests = recordedRequests(record);
  return { ws, dir, board, session: savedSessionText(statePaths(dir).sessionFile('alice')), requests };
}

const helper = (description: string, prompt: string, tools?: string[]) => ({ name: 'task', input: { description, prompt, ...(tools ? { tools } : {}) } });

describe('subagents (the task tool)', () => {
  it('two helpers in one turn run at the same time; only their reports reach the conversation; their calls count in the usage', async () => {
    const { ws, dir, session, requests } = await team([
      {
        toolUses: [
          helper('first look', sh('date +%s%N > a.start', 'sleep 1', 'date +%s%N > a.end', 'echo found-a'), ['bash']),
          helper('second look', sh('date +%s%N > b.start', 'sleep 1', 'date +%s%N > b.end', 'echo found-b'), ['bash']),
        ],
      },
    ]);
    const read = (file: string) => BigInt(fs.readFileSync(path.join(ws, file), 'utf8').trim());
    // Each started before the other ended: they overlapped.
    expect(read('a.start') < read('b.end') && read('b.start') < read('a.end')).toBe(true);
    expect(session).toContain('Report on \\"first look\\"');
    expect(session).toContain('found-b');
    // The helpers' own conversations (their directive, their bash calls) are not in alice's.
    expect(session).not.toContain('\\"name\\":\\"bash\\"');
    const helperRequests = requests.filter((r) => r.system.startsWith('You are a helper of alice'));
    expect(helperRequests.length).toBeGreaterThanOrEqual(2 * 5);
    expect(helperRequests.every((r) => r.tools.join(',') === 'bash')).toBe(true);
    // Billed to alice (the exact sum is checked with a scripted model in subagent-runner.test.ts).
    expect(member(dir, 'alice')!.usage!.inputTokens).toBeGreaterThan(0);
  });

  it('a helper gets read-only tools by default, and never team tools nor task', async () => {
    // Script steps are the teammate's, helpers' calls included: the helper asking for the board fails before any call.
    const { session, requests } = await team([
      { toolUse: helper('wants the board', 'claim something', ['claim_task']) },
      { toolUse: helper('read only', 'look at the files') },
    ]);
    expect(session).toContain('a subagent cannot have claim_task; it may have: read_file, glob, grep, load_skill, bash, write_file, edit_file, job_output');
    const helpers = requests.filter((r) => r.system.startsWith('You are a helper of alice'));
    expect(helpers.map((r) => r.tools)).toEqual([['read_file', 'glob', 'grep', 'load_skill']]);
    expect(session).toContain('Report on \\"read only\\"');
  });

  it('a helper the model refuses comes back as an error result the teammate reads, and the task goes on', async () => {
    const { session, board } = await team([{ toolUse: helper('refused', 'do something') }, { stopReason: 'refusal', text: 'I cannot help with that.' }]);
    expect(session).toContain('was refused by the model: I cannot help with that.');
    expect(board.get(1).status).toBe('completed');
  });
});
