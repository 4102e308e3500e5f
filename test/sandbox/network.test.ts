import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { members, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

/** A server on the host's loopback that records every request it gets. */
async function hostServer(): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.url ?? '');
    response.end(`host-secret-page ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  onBeforeTempRemoval(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, seen };
}

describe("a teammate's commands have no network but through the proxy (real daemon, real bubblewrap, real curl)", () => {
  it('reach no host the settings do not allow, by proxy or directly; each refusal is logged and counted in teamd status; an allowed name goes through', async () => {
    const { port, seen } = await hostServer();
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    const { board } = openBoard(dir);
    fs.mkdirSync(dir, { recursive: true });
    const settingsFile = path.join(dir, 'settings.json');
    // The default list (package registries): this machine's server is not on it.
    fs.writeFileSync(settingsFile, JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
    await board.add({
      subject: 'try to reach the host',
      description: sh(
        `curl -sf -m 5 http://127.0.0.1:${port}/by-address > by-address.txt 2>&1; echo "rc=$?" >> by-address.txt`,
        `curl -sf -m 5 http://localhost:${port}/by-name > by-name.txt 2>&1; echo "rc=$?" >> by-name.txt`,
        `curl -sf -m 5 --noproxy '*' http://127.0.0.1:${port}/direct > direct.txt 2>&1; echo "rc=$?" >> direct.txt`,
        `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /raw HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) > raw.txt 2>&1; echo "rc=$?" >> raw.txt`,
        `getent hosts example.com > dns.txt 2>&1; echo "rc=$?" >> dns.txt`,
      ),
    });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => ['completed', 'failed'].includes(board.get(1).status), 'the task finished', 30_000);
    expect(board.get(1).status, board.get(1).result ?? '').toBe('completed');
    for (const file of ['by-address.txt', 'by-name.txt', 'direct.txt', 'raw.txt', 'dns.txt']) {
      const text = fs.readFileSync(path.join(ws, file), 'utf8');
      expect(text, file).not.toContain('host-secret-page');
      expect(text, file).not.toMatch(/rc=0\n$/);
    }
    expect(seen).toEqual([]);
    // The two requests through the proxy were refused, logged with the host, and counted.
    await waitFor(() => (members(dir).find((m) => m.name === 'alice')?.netRefused ?? 0) >= 2, 'the refusals counted on the roster');
    const log = fs.readFileSync(path.join(dir, 'logs', 'alice.log'), 'utf8');
    expect(log).toContain('network: refused a connection from a command');
    expect(log).toContain('"host":"127.0.0.1"');
    expect(log).toContain('"host":"localhost"');
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.stdout).toMatch(/network: [2-9]\d* requests of commands refused by the proxy \(alice [2-9]/);

    // The person allows the name, and this machine's addresses: the next request goes through, by the settings in force.
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' }, sandbox: { network: { allowedDomains: ['localhost'], allowLocalBinding: true } } }),
    );
    await board.add({
      subject: 'reach the allowed host',
      description: sh(
        `curl -sf -m 5 http://localhost:${port}/allowed > allowed.txt`,
        `curl -sf -m 5 http://127.0.0.1:${port}/not-named > not-named.txt 2>&1; echo "rc=$?" >> not-named.txt`,
      ),
    });
    await waitFor(() => ['completed', 'failed'].includes(board.get(2).status), 'the second task finished', 30_000);
    expect(board.get(2).status, board.get(2).result ?? '').toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'allowed.txt'), 'utf8')).toBe('host-secret-page /allowed');
    expect(fs.readFileSync(path.join(ws, 'not-named.txt'), 'utf8')).not.toContain('host-secret-page');
    expect(seen).toEqual(['/allowed']);
  });

  it('a name on the list that resolves to this machine is refused without allowLocalBinding (no way round it by DNS)', async () => {
    const { port, seen } = await hostServer();
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    const { board } = openBoard(dir);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'settings.json'),
      JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' }, sandbox: { network: { allowedDomains: ['localhost', '*'] } } }),
    );
    await board.add({
      subject: 'reach this machine by an allowed name',
      description: sh(`curl -sf -m 5 http://localhost:${port}/x > out.txt 2>&1; echo "rc=$?" >> out.txt`),
    });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => ['completed', 'failed'].includes(board.get(1).status), 'the task finished', 30_000);
    expect(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8')).not.toContain('host-secret-page');
    expect(seen).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'logs', 'alice.log'), 'utf8')).toContain('allowLocalBinding');
  });
});
