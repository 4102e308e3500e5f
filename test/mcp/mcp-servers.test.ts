import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import type { ServerConfig } from '../../src/mcp/mcp-config.js';
import { MAX_TOOLS_PER_SERVER, McpServers, type ServerView } from '../../src/mcp/mcp-servers.js';
import { openServer } from '../../src/mcp/server-launch.js';
import { isAlive } from '../../src/proc/process-identity.js';
import { detectSandbox, wrapServer } from '../../src/sandbox/sandbox.js';
import { FIXTURES, startFixture } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { toolContext } from '../helpers/tool-context.js';
import { waitFor } from '../helpers/wait.js';
import { makeTestCa, tlsProxy } from '../helpers/tls-certs.js';
import { createHttpClient, type HttpFetch } from '../../src/platform/http/http-fetch.js';

const SERVER = path.join(FIXTURES, 'mcp-server.mjs');
const hubs: McpServers[] = [];

afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.stopAll();
});

function stdio(name: string, args: string[] = [], source: ServerConfig['source'] = 'team', env: Record<string, string> = {}): ServerConfig {
  return { name, source, file: `/test/${source}.json`, spec: { type: 'stdio', command: process.execPath, args: [SERVER, ...args], env } };
}

function hubOf(servers: ServerConfig[], options: { connectTimeoutMs?: number; env?: NodeJS.ProcessEnv; maxAttempts?: number; fetch?: HttpFetch } = {}) {
  const workspace = makeTempDir('teamd-ws-');
  const stateDir = path.join(workspace, '.team');
  fs.mkdirSync(stateDir);
  fs.writeFileSync(path.join(stateDir, 'secret.txt'), 'the state folder');
  const views: (readonly ServerView[])[] = [];
  const marker = { name: 'TEAMD_SPAWNED_BY', value: 'mcp-test' };
  const env = { ...process.env, ...options.env };
  const hub = new McpServers({
    servers,
    open: (server) =>
      openServer(server, {
        workspace,
        env,
        commandEnv: { PATH: env.PATH, HOME: env.HOME, [marker.name]: marker.value },
        sandboxed: (command) => wrapServer(detectSandbox(), 'required', command, { workspace, hidden: [stateDir] }),
        onStderr: () => {},
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    toolTimeoutMs: 10_000,
    restart: { baseMs: 50, maxMs: 200, maxAttempts: options.maxAttempts ?? 3 },
    logger: createLogger(),
    onChange: (view) => views.push(view),
  });
  hubs.push(hub);
  hub.start();
  return { hub, views, stateDir, ctx: toolContext() };
}

describe('MCP servers of a teammate', () => {
  it("offers a stdio server's tools as mcp__<server>__<tool>, with its schema, and turns results and errors into tool results", async () => {
    const { hub, ctx } = hubOf([stdio('fixture')]);
    await hub.settled();
    const names = hub.listed().map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['connect_mcp', 'mcp__fixture__echo', 'mcp__fixture__fail', 'mcp__fixture__picture']));
    const echo = hub.find('mcp__fixture__echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    // readOnlyHint: it may run before a required plan is approved; the others may not.
    expect(echo.needsApprovedPlan).toBe(false);
    expect(hub.find('mcp__fixture__fail')!.needsApprovedPlan).toBe(true);
    expect(await echo.run({ text: 'hi' }, ctx)).toEqual({ content: 'echo(stdio): hi' });
    expect(await hub.find('mcp__fixture__fail')!.run({}, ctx)).toEqual({ content: 'the fixture failed on purpose', isError: true });
    const picture = await hub.find('mcp__fixture__picture')!.run({}, ctx);
    expect(picture.content).toMatch(/^a picture follows\n\[image \(image\/png, \d+ bytes\): not shown/);
    // The server's own validation error reaches the model as an error it can read.
    const invalid = await echo.run({ text: 5 }, ctx);
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toMatch(/text/);
  });

  it('restarts a crashed server with backoff: its tools are unavailable meanwhile, then come back', async () => {
    const { hub, views, ctx } = hubOf([stdio('fixture')]);
    await hub.settled();
    const firstPid = hub.view()[0]!.pid!;
    const crash = await hub.find('mcp__fixture__crash')!.run({}, ctx);
    expect(crash).toMatchObject({ isError: true });
    expect(crash.content).toContain('the server stopped while the call ran');
    // Meanwhile: not offered, and a call says why.
    const during = views.find((view) => view[0]!.state === 'restarting');
    expect(during?.[0]!.problem).toMatch(/exited with code 3/);
    const ready = await waitFor(() => hub.view().find((v) => v.state === 'ready' && v.restarts === 1), 'the server back');
    expect(ready.pid).not.toBe(firstPid);
    expect(isAlive(firstPid)).toBe(false);
    expect(await hub.find('mcp__fixture__echo')!.run({ text: 'again' }, ctx)).toEqual({ content: 'echo(stdio): again' });
    expect(hub.listed().map((t) => t.name)).toContain('mcp__fixture__echo');
  });

  it('a server that prints junk on stdout works on; one that floods it past 10 MiB is stopped and restarted, and the teammate lives on', async () => {
    const { hub, ctx } = hubOf([stdio('noisy', ['--noisy'])]);
    await hub.settled();
    expect(await hub.find('mcp__noisy__echo')!.run({ text: 'still' }, ctx)).toEqual({ content: 'echo(stdio): still' });
    const flood = await hub.find('mcp__noisy__flood')!.run({}, ctx);
    expect(flood.isError).toBe(true);
    await waitFor(() => hub.view().find((v) => v.state === 'ready' && v.restarts === 1), 'the server back');
    expect(await hub.find('mcp__noisy__echo')!.run({ text: 'after' }, ctx)).toEqual({ content: 'echo(stdio): after' });
  });

  it('offers at most 128 tools of one server: every tool is in every request', async () => {
    const { hub } = hubOf([stdio('big', ['--many', '200'])]);
    await hub.settled();
    expect(hub.listed().filter((tool) => tool.name.startsWith('mcp__big__'))).toHaveLength(MAX_TOOLS_PER_SERVER);
  });

  it('refreshes the tool list on tools/list_changed before the next call', async () => {
    const { hub, ctx } = hubOf([stdio('fixture')]);
    await hub.settled();
    expect(hub.find('mcp__fixture__late')).toBeUndefined();
    expect(await hub.find('mcp__fixture__add_tool')!.run({}, ctx)).toEqual({ content: 'added late' });
    await hub.settled();
    expect(hub.listed().map((t) => t.name)).toContain('mcp__fixture__late');
    expect(await hub.find('mcp__fixture__late')!.run({}, ctx)).toEqual({ content: 'late tool ran' });
  });

  it('a server that never answers initialize times out with a clear reason; the others work on', async () => {
    const { hub, ctx } = hubOf([stdio('slow', ['--hang']), stdio('fixture')], { connectTimeoutMs: 800 });
    await hub.settled();
    const slow = hub.view().find((v) => v.name === 'slow')!;
    expect(slow.state).toBe('failed');
    expect(slow.problem).toBe('it did not answer initialize within 800 ms');
    expect(hub.listed().some((t) => t.name.startsWith('mcp__slow__'))).toBe(false);
    expect(await hub.find('mcp__fixture__echo')!.run({ text: 'x' }, ctx)).toEqual({ content: 'echo(stdio): x' });
    // connect_mcp tries again, and says why it failed again.
    const again = await hub.connect('slow');
    expect(again).toEqual({ isError: true, content: expect.stringContaining('did not answer initialize within 800 ms') });
    expect(await hub.connect('nope')).toMatchObject({ isError: true, content: expect.stringContaining('no MCP server "nope"') });
  });

  it('a command that does not exist, and a variable that is not set, fail that server with a clear reason', async () => {
    const missing: ServerConfig = { ...stdio('gone'), spec: { type: 'stdio', command: 'no-such-mcp-server-x', args: [], env: {} } };
    const unset = stdio('unset', [], 'team', { TOKEN: '${TEAMD_TEST_UNSET_VAR}' });
    const { hub } = hubOf([missing, unset]);
    await hub.settled();
    const [gone, notSet] = hub.view();
    expect(gone!.problem).toContain('no-such-mcp-server-x was not found');
    expect(notSet!.problem).toContain('uses ${TEAMD_TEST_UNSET_VAR}, which is not set');
  });

  it('stops every server with its whole process group', async () => {
    const pids = path.join(makeTempDir(), 'pids');
    const { hub } = hubOf([stdio('fixture', ['--child'], 'team', { FIXTURE_PIDS: pids })]);
    await hub.settled();
    const started = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(started).toHaveLength(2);
    expect(started.every(isAlive)).toBe(true);
    await hub.stopAll();
    await waitFor(() => started.every((pid) => !isAlive(pid)), 'the server and its child gone');
  });

  it("runs the workspace's servers in the sandbox: no state folder, no secrets; real pids, stopped with their group", async () => {
    const pids = path.join(makeTempDir(), 'pids');
    const { hub, stateDir, ctx } = hubOf([stdio('ws', ['--child'], 'workspace', { FIXTURE_PIDS: pids }), stdio('team', [], 'team')], {
      env: { ANTHROPIC_API_KEY: 'sk-secret' },
    });
    await hub.settled();
    expect(hub.view().map((v) => v.state)).toEqual(['ready', 'ready']);
    const seen = async (server: string) => (await hub.find(`mcp__${server}__exists`)!.run({ path: stateDir }, ctx)).content;
    expect(await seen('ws')).toBe(`${stateDir}: folder of 0 entries`);
    expect(await seen('team')).toBe(`${stateDir}: folder of 1 entries`);
    expect((await hub.find('mcp__ws__env')!.run({ name: 'ANTHROPIC_API_KEY' }, ctx)).content).toBe('ANTHROPIC_API_KEY=(unset)');
    expect((await hub.find('mcp__team__env')!.run({ name: 'ANTHROPIC_API_KEY' }, ctx)).content).toBe('ANTHROPIC_API_KEY=(unset)');
    // The pids it wrote are this machine's, and none outlives the stop.
    const started = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(started).toHaveLength(2);
    expect(started.every(isAlive)).toBe(true);
    await hub.stopAll();
    await waitFor(() => started.every((pid) => !isAlive(pid)), 'the sandboxed server and its child gone');
  });

  it('talks to a streamable HTTP server, with ${VAR} expanded in its headers, and reconnects after it restarts', async () => {
    const dir = makeTempDir();
    const portFile = path.join(dir, 'port');
    let server = startFixture('mcp-server.mjs', ['--http', portFile]);
    const port = await waitFor(() => fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8'), 'the HTTP server port');
    const http: ServerConfig = {
      name: 'web',
      source: 'team',
      file: '/test/team.json',
      spec: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Fixture': '${FIXTURE_TAG}' } },
    };
    // It may take the server a while to come back on a busy machine: tries go on every 200 ms for up to 20 s.
    const { hub, ctx } = hubOf([http], { env: { FIXTURE_TAG: 'tagged' }, maxAttempts: 100 });
    await hub.settled();
    expect(await hub.find('mcp__web__echo')!.run({ text: 'over http' }, ctx)).toEqual({ content: 'echo(http:tagged): over http' });
    server.kill('SIGKILL');
    await new Promise((resolve) => server.once('exit', resolve));
    fs.rmSync(portFile);
    const down = await hub.find('mcp__web__echo')!.run({ text: 'down' }, ctx);
    expect(down.isError).toBe(true);
    server = startFixture('mcp-server.mjs', ['--http', portFile, '--port', port]);
    await waitFor(() => fs.existsSync(portFile), 'the HTTP server back');
    await waitFor(() => hub.view().find((v) => v.state === 'ready' && v.restarts === 1), 'reconnected');
    expect(await hub.find('mcp__web__echo')!.run({ text: 'back' }, ctx)).toEqual({ content: 'echo(http:tagged): back' });
  });

  it('talks to a server over the older HTTP+SSE transport ("type": "sse"), as many published servers still speak', async () => {
    const dir = makeTempDir();
    const portFile = path.join(dir, 'port');
    const server = startFixture('mcp-server.mjs', ['--sse', portFile]);
    try {
      const port = await waitFor(() => fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8'), 'the SSE server port');
      const sse: ServerConfig = {
        name: 'events',
        source: 'team',
        file: '/test/team.json',
        spec: { type: 'sse', url: `http://127.0.0.1:${port}/sse`, headers: {} },
      };
      const { hub, ctx } = hubOf([sse]);
      await hub.settled();
      expect(hub.view()[0]).toMatchObject({ type: 'sse', state: 'ready' });
      expect(await hub.find('mcp__events__echo')!.run({ text: 'over sse' }, ctx)).toEqual({ content: 'echo(sse): over sse' });
      await hub.stopAll();
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('over HTTPS behind a CA from NODE_EXTRA_CA_CERTS that Node did not load: refused with Node’s fetch, answered through the teammate’s', async () => {
    const dir = makeTempDir();
    const portFile = path.join(dir, 'port');
    const server = startFixture('mcp-server.mjs', ['--http', portFile]);
    const port = await waitFor(() => fs.existsSync(portFile) && fs.readFileSync(portFile, 'utf8'), 'the HTTP server port');
    const ca = makeTestCa();
    const proxy = await tlsProxy(ca, Number(port));
    const https: ServerConfig = {
      name: 'secure',
      source: 'team',
      file: '/test/team.json',
      spec: { type: 'http', url: `https://127.0.0.1:${proxy.port}/mcp`, headers: {} },
    };
    try {
      // This test process loaded no extra CA at start either (the variable names nothing of ours).
      const refused = hubOf([https], { connectTimeoutMs: 2_000, maxAttempts: 1 });
      await refused.hub.settled();
      expect(refused.hub.view()[0]?.state).not.toBe('ready');
      const client = createHttpClient({ extraCaFile: ca.caFile });
      // As mcp-wiring.ts gives it: the MCP client pipes each body as a web stream.
      const trusted = hubOf([https], { fetch: client.webFetch, env: { FIXTURE_TAG: 'tls' } });
      await trusted.hub.settled();
      expect(await trusted.hub.find('mcp__secure__echo')!.run({ text: 'over https' }, trusted.ctx)).toEqual({ content: 'echo(http:): over https' });
      await trusted.hub.stopAll();
      client.close();
    } finally {
      await proxy.close();
      server.kill('SIGKILL');
    }
  });
});
