import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

describe('list_teammates for every teammate (issue 47)', () => {
  it('a teammate that is not the lead reads the roster: who else there is, their roles and what they do', async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    const { board } = openBoard(dir);
    await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    expect((await runTeamd(['spawn', 'bob', 'reviewer', '--dir', dir])).code).toBe(0);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await board.add({ subject: 'who is here', description: `\`\`\`teamd-calls\n${JSON.stringify([{ name: 'list_teammates', input: {} }])}\n\`\`\`` });
    await waitFor(() => (['completed', 'failed'].includes(board.get(1).status) ? board.get(1) : undefined), 'the task finished');
    const task = board.get(1);
    expect(task.status, task.result ?? '').toBe('completed');
    const other = task.owner === 'alice' ? 'bob (reviewer)' : 'alice (coder)';
    expect(task.result).toContain(`list_teammates: ${other}: `);
    expect(task.result).not.toContain(`${task.owner} (`);
  });
});
