import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function startSender(args: readonly string[]): { child: ChildProcess; ended: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = fork(path.join(FIXTURES, 'link-sender.mjs'), [...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'exit', then the ends of both pipes ('close' never comes for a child whose channel the parent closed first).
  const ended = Promise.all([once(child, 'exit'), once(child.stdout!, 'end'), once(child.stderr!, 'end')]).then(([[code]]) => ({
    code: code as number | null,
    stdout,
    stderr,
  }));
  return { child, ended };
}

describe('the link to the daemon', () => {
  it('a worker whose daemon closed the channel before it loaded ends at once (no orphan)', async () => {
    const { child, ended } = startSender([]);
    // Closed before the worker has even loaded: no 'disconnect' event will ever reach it.
    child.disconnect();
    const result = await ended;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/disconnected/);
  });

  it('a worker sending while the daemon closes the channel ends by its disconnect handler, never with an EPIPE stack', async () => {
    const closed = path.join(makeTempDir(), 'closed');
    const { child, ended } = startSender([closed]);
    child.once('message', () => child.disconnect());
    // The channel is closed on our side: the worker, which has not turned its event loop since
    // ready, now sends into it (process.connected still reads true there).
    child.once('disconnect', () => fs.writeFileSync(closed, ''));
    const result = await ended;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('disconnected\n');
  });
});
