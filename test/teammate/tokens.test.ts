import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const calls = (value: unknown) => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

function workspace() {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  return { ws, dir, ...openBoard(dir) };
}

describe('the token bill', () => {
  it('a scripted 20-call task reads at least 80 % of its input tokens from the prompt cache, and teamd status shows it', async () => {
    const { dir, board } = workspace();
    await board.add({
      subject: 'twenty calls',
      description: calls(Array.from({ length: 20 }, (_, i) => ({ name: 'bash', input: { command: `echo step ${i}` } }))),
    });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.get(1).status === 'completed', 'the task done');
    const usage = await waitFor(() => member(dir, 'alice')?.usage, 'usage in the roster');
    const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    expect(usage.cacheReadTokens / input).toBeGreaterThanOrEqual(0.8);
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.stdout).toMatch(/CACHE-READ\s+CACHE-WRITE\s+CACHED/);
    expect(status.stdout).toMatch(/alice .* \d+%/);
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).not.toContain('would refuse');
  });
});
