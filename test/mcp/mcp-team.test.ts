import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { isAlive } from '../../src/proc/process-identity.js';
import { openBoard } from '../helpers/board.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { FIXTURES, runTeamd } from '../helpers/processes.js';
import { savedSessionText } from '../helpers/session.js';
import { recordedRequests } from '../helpers/recorded-requests.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const SERVER = path.join(FIXTURES, 'mcp-server.mjs');
const calls = (value: unknown) => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

interface Setup {
  readonly teamServers?: Record<string, unknown>;
  /** Written as the workspace's .mcp.json, as is. */
  readonly workspaceFile?: string;
  readonly settings?: Record<string, unknown>;
  readonly roles?: Record<string, Record<string, unknown>>;
  readonly config?: Record<string, unknown>;
}

async function team(tasks: { subject: string; description: string }[], setup: Setup) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  const { board } = openBoard(dir);
  for (const task of tasks) await board.add(task);
  if (setup.teamServers) fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({ mcpServers: setup.teamServers }));
  if (setup.workspaceFile !== undefined) fs.writeFileSync(path.join(ws, '.mcp.json'), setup.workspaceFile);
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(setup.settings ?? { permissions: { defaultMode: 'bypassPermissions' } }));
  for (const [role, settings] of Object.entries(setup.roles ?? {})) {
    fs.mkdirSync(path.join(dir, 'roles'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'roles', `${role}.json`), JSON.stringify(settings));
  }
  const record = path.join(ws, 'requests.jsonl');
  const pids = path.join(ws, 'server-pids');
  await startDaemon(dir, {
    env: { TEAMD_OFFLINE_RECORD: record, FIXTURE_PIDS: pids, FIXTURE_TAG: 'tagged' },
    // The fixture server finds where to record its pid in its environment, which has only what the settings pass.
    settings: { passEnv: ['FIXTURE_PIDS', 'FIXTURE_TAG'], ...setup.config },
  });
  const paths = statePaths(dir);
  return {
    ws,
    dir,
    board,
    paths,
    serverPids: () => (fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number) : []),
    seen: () => recordedRequests(record),
    session: (name = 'alice') => savedSessionText(paths.sessionFile(name)),
    log: (name = 'alice') => fs.readFileSync(paths.logFile(name), 'utf8'),
  };
}

const fixture = (...args: string[]) => ({ command: process.execPath, args: [SERVER, ...args] });

describe('MCP servers in a running team', () => {
  it("a server's tools are in the teammate's first request, scripted calls get their results and errors, and no server outlives kill -9 or teamd stop", async () => {
    const t = await team(
      [
        {
          subject: 'use the server',
          description: calls([
            { name: 'mcp__fixture__echo', input: { text: 'hello' } },
            { name: 'mcp__fixture__fail', input: {}, allowError: true },
            { name: 'mcp__fixture__add_tool', input: {} },
            { name: 'mcp__fixture__late', input: {} },
          ]),
        },
      ],
      // The workspace's .mcp.json: the server runs in the sandbox, and still records its real pids.
      { workspaceFile: JSON.stringify({ mcpServers: { fixture: fixture('--child') } }), roles: { reviewer: { enabledMcpjsonServers: [] } } },
    );
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => t.board.get(1).status === 'completed' || undefined, 'task 1 done');
    const first = t.seen().find((s) => s.teammate === 'alice')!;
    expect(first.tools).toEqual(expect.arrayContaining(['connect_mcp', 'mcp__fixture__echo', 'mcp__fixture__fail']));
    expect(t.board.get(1).result).toContain('echo(stdio): hello');
    const session = t.session();
    expect(session).toContain('echo(stdio): hello');
    expect(session).toMatch(/"content":"the fixture failed on purpose","is_error":true/);
    // tools/list_changed: the tool added during the task was offered in the very next request, and ran.
    expect(session).toContain('late tool ran');

    // A reviewer's role file enables no server: its requests carry none of them.
    expect((await runTeamd(['spawn', 'bob', 'reviewer', '--dir', t.dir])).code).toBe(0);
    expect((await runTeamd(['send', 'bob', 'hello bob', '--dir', t.dir])).code).toBe(0);
    const bob = await waitFor(() => t.seen().find((s) => s.teammate === 'bob'), "bob's request");
    expect(bob.tools.filter((name) => name.includes('mcp'))).toEqual([]);

    const listed = JSON.parse((await runTeamd(['mcp', 'list', '--json', '--dir', t.dir])).stdout) as {
      servers: { name: string; source: string; teammates: { name: string; state: string; tools: string[] }[] }[];
    };
    expect(listed.servers).toHaveLength(1);
    expect(listed.servers[0]!.teammates).toEqual([
      expect.objectContaining({ name: 'alice', state: 'ready', tools: expect.arrayContaining(['mcp__fixture__late']) }),
    ]);

    // kill -9 of the teammate: the daemon ends what it left running, server and grandchild included.
    const before = t.serverPids();
    expect(before).toHaveLength(2);
    process.kill(member(t.dir, 'alice')!.pid!, 'SIGKILL');
    await waitFor(() => before.every((pid) => !isAlive(pid)), 'the first server and its child gone');
    await waitFor(() => member(t.dir, 'alice')?.status === 'idle' && t.serverPids().length === 4, 'alice back with a new server');
    expect((await runTeamd(['stop', '--dir', t.dir])).code).toBe(0);
    const all = t.serverPids();
    expect(all.filter(isAlive)).toEqual([]);
  });

  it('a crashed server is restarted and its tools come back; a denied MCP tool is blocked', async () => {
    const t = await team(
      [
        {
          subject: 'crash it',
          description: calls([
            { name: 'mcp__fixture__crash', input: {}, allowError: true },
            { name: 'connect_mcp', input: { server: 'fixture' } },
            { name: 'mcp__fixture__echo', input: { text: 'after the crash' } },
            { name: 'mcp__fixture__env', input: { name: 'HOME' }, allowError: true },
            { name: 'mcp__other__echo', input: { text: 'x' }, allowError: true },
          ]),
        },
      ],
      {
        teamServers: { fixture: fixture(), other: fixture() },
        settings: { permissions: { defaultMode: 'bypassPermissions', deny: ['mcp__fixture__env', 'mcp__other'] } },
      },
    );
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => t.board.get(1).status === 'completed' || undefined, 'task 1 done');
    const session = t.session();
    expect(session).toContain('the server stopped while the call ran');
    expect(session).toContain('echo(stdio): after the crash');
    expect(session).toContain('Permission denied: denied by the rule mcp__fixture__env');
    expect(session).toContain('Permission denied: denied by the rule mcp__other');
    expect(session).not.toContain('HOME=');
    const listed = JSON.parse((await runTeamd(['mcp', 'list', '--json', '--dir', t.dir])).stdout) as {
      servers: { name: string; teammates: { state: string; restarts: number }[] }[];
    };
    expect(listed.servers.find((s) => s.name === 'fixture')!.teammates[0]).toMatchObject({ state: 'ready', restarts: 1 });
  });

  it('an invalid entry of .mcp.json is left out naming the file, and a server that never answers times out: the teammate works on without them', async () => {
    const t = await team([{ subject: 'plain work', description: '```sh\necho plain\n```' }], {
      workspaceFile: '{"mcpServers": {"broken": {"command": 42}}}',
      teamServers: { slow: fixture('--hang'), fixture: fixture() },
      // Long enough for the good server to start on a loaded machine; the other never answers, whatever the wait.
      config: { mcpConnectTimeoutMs: 8000 },
    });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => t.board.get(1).status === 'completed' || undefined, 'task 1 done');
    const log = t.log();
    expect(log).toContain(`${path.join(t.ws, '.mcp.json')}: mcpServers.broken.command: Invalid input: expected string, received number`);
    expect(log).toContain('it did not answer initialize within 8000 ms');
    const tools = t.seen().find((s) => s.teammate === 'alice')!.tools;
    expect(tools).toContain('mcp__fixture__echo');
    expect(tools.some((name) => name.startsWith('mcp__slow__'))).toBe(false);
    const list = await runTeamd(['mcp', 'list', '--dir', t.dir]);
    expect(list.code).toBe(2);
    expect(list.stderr).toBe(
      `teamd: ${path.join(t.ws, '.mcp.json')}: mcpServers.broken.command: Invalid input: expected string, received number; that server is left out\n`,
    );
  });
});

describe('an MCP server started with npx, as Claude Code users configure theirs', () => {
  it('installs into the team cache inside the sandbox and its tools answer', async () => {
    const ws = makeTempDir('teamd-ws-');
    // The package is copied into the workspace: a checkout in the daemon's home would be out of the sandbox's sight.
    const pkg = path.join(ws, 'npx-server');
    fs.cpSync(path.join(FIXTURES, 'npx-mcp-server'), pkg, { recursive: true });
    const t = await team([{ subject: 'ask the npx server', description: calls([{ name: 'mcp__npxsrv__where', input: {} }]) }], {
      workspaceFile: JSON.stringify({ mcpServers: { npxsrv: { command: 'npx', args: ['--yes', pkg] } } }),
    });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => ['completed', 'failed'].includes(t.board.get(1).status) || undefined, 'the task finished', 60_000);
    expect(t.board.get(1).status, t.board.get(1).result ?? '').toBe('completed');
    expect(t.board.get(1).result).toMatch(/npx server: home .*script .*_npx/);
    // npx kept what it installed in the team's cache, not in the person's home.
    expect(fs.readdirSync(path.join(t.dir, 'cache', 'npm'))).toContain('_npx');
  });

  it('a server whose tools declare draft-07 schemas works against a stand-in that refuses anything but draft 2020-12, as the API does', async () => {
    const ws = makeTempDir('teamd-ws-');
    fs.cpSync(path.join(FIXTURES, 'npx-mcp-server'), path.join(ws, 'server'), { recursive: true });
    const tasks = [1, 2, 3].map((n) => ({ subject: `look up ${n}`, description: calls([{ name: 'mcp__old__lookup', input: { query: `q${n}` } }]) }));
    const t = await team(tasks, { workspaceFile: JSON.stringify({ mcpServers: { old: { command: 'node', args: [path.join(ws, 'server', 'server.mjs')] } } }) });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => [1, 2, 3].every((id) => ['completed', 'failed'].includes(t.board.get(id).status)) || undefined, 'the three tasks finished', 60_000);
    for (const id of [1, 2, 3]) expect(t.board.get(id), `task ${id}`).toMatchObject({ status: 'completed', result: expect.stringContaining(`found q${id}`) });
    // What the API was sent: 2020-12's spelling.
    const first = t.seen().find((s) => s.teammate === 'alice')!;
    expect(first.tools).toContain('mcp__old__lookup');
  });

  it('a tool whose schema the API still refuses costs one task, not every one: it is no longer offered, and the lead reads why', async () => {
    const ws = makeTempDir('teamd-ws-');
    fs.cpSync(path.join(FIXTURES, 'npx-mcp-server'), path.join(ws, 'server'), { recursive: true });
    const tasks = [1, 2, 3].map((n) => ({ subject: `look up ${n}`, description: calls([{ name: 'mcp__bad__lookup', input: { query: `q${n}` } }]) }));
    const t = await team(tasks, {
      workspaceFile: JSON.stringify({ mcpServers: { bad: { command: 'node', args: [path.join(ws, 'server', 'server.mjs'), '--broken-tool'] } } }),
    });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', t.dir])).code).toBe(0);
    await waitFor(() => [1, 2, 3].every((id) => ['completed', 'failed'].includes(t.board.get(id).status)) || undefined, 'the three tasks finished', 60_000);
    const statuses = [1, 2, 3].map((id) => t.board.get(id).status);
    expect(statuses.filter((status) => status === 'failed')).toHaveLength(1);
    const failed = [1, 2, 3].map((id) => t.board.get(id)).find((task) => task.status === 'failed')!;
    expect(failed.result).toMatch(/JSON Schema draft 2020-12.*the API refuses the MCP tool mcp__bad__broken, which is no longer offered to alice/s);
    expect(fs.readFileSync(path.join(t.dir, 'inbox', 'lead.jsonl'), 'utf8')).toContain('mcp__bad__broken');
    expect(t.seen().at(-1)!.tools).not.toContain('mcp__bad__broken');
  });
});

describe('teamd mcp check', () => {
  it('starts each server as a teammate would; one that fails shows the last lines it wrote to stderr', async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'npx-mcp-server'), path.join(ws, 'server'), { recursive: true });
    fs.writeFileSync(
      path.join(ws, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          fine: { command: 'node', args: [path.join(ws, 'server', 'server.mjs')] },
          broken: { command: 'sh', args: ['-c', 'echo "starting the github server" >&2; echo "Error: GITHUB_PERSONAL_ACCESS_TOKEN is not set" >&2; exit 1'] },
        },
      }),
    );
    const checked = await runTeamd(['mcp', 'check', '--dir', dir, '--timeout', '10000']);
    expect(checked.code).not.toBe(0);
    expect(checked.stdout).toMatch(/fine \(stdio, workspace\): ok in \d+ ms, 2 tools: mcp__fine__where, mcp__fine__lookup/);
    expect(checked.stdout).toMatch(
      /broken \(stdio, workspace\): FAILED after \d+ ms: .*\n {2}its last lines on stderr:\n {4}starting the github server\n {4}Error: GITHUB_PERSONAL_ACCESS_TOKEN is not set\n/,
    );
  });
});
