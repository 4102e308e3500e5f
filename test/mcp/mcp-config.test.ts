import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandVars, readMcpConfig, readMcpFile, serversFor } from '../../src/mcp/mcp-config.js';
import { apiToolName, boundedDescription, MAX_DESCRIPTION, resultOf } from '../../src/mcp/mcp-tool.js';
import { decide, parseRules } from '../../src/permissions/permissions.js';
import { combineSettings, type SettingsFile } from '../../src/settings/settings.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function files(workspace: unknown, team: unknown): string {
  const ws = makeTempDir('teamd-ws-');
  fs.mkdirSync(path.join(ws, '.team'));
  if (workspace !== undefined) fs.writeFileSync(path.join(ws, '.mcp.json'), typeof workspace === 'string' ? workspace : JSON.stringify(workspace));
  if (team !== undefined) fs.writeFileSync(path.join(ws, '.team', 'mcp.json'), typeof team === 'string' ? team : JSON.stringify(team));
  return path.join(ws, '.team');
}

describe('MCP configuration (.mcp.json, .team/mcp.json)', () => {
  it("reads Claude Code's format: stdio servers with or without a type, and HTTP servers; the team's entry replaces the workspace's", () => {
    const dir = files(
      { mcpServers: { a: { command: 'node', args: ['a.js'], env: { X: '1' } }, b: { type: 'http', url: 'http://localhost:1/mcp' }, same: { command: 'ws' } } },
      { mcpServers: { c: { type: 'stdio', command: 'c' }, same: { command: 'team' } } },
    );
    const config = readMcpConfig(dir);
    expect(config.problems).toEqual([]);
    const byName = Object.fromEntries(config.servers.map((s) => [s.name, s]));
    expect(byName.a).toMatchObject({ source: 'workspace', spec: { type: 'stdio', command: 'node', args: ['a.js'], env: { X: '1' } } });
    expect(byName.b).toMatchObject({ source: 'workspace', spec: { type: 'http', url: 'http://localhost:1/mcp', headers: {} } });
    expect(byName.c).toMatchObject({ source: 'team', spec: { type: 'stdio', command: 'c', args: [], env: {} } });
    expect(byName.same).toMatchObject({ source: 'team', spec: { command: 'team' } });
  });

  it('refuses a bad file with the file and what is wrong, and keeps the servers of the other file; a bad entry is left out alone', () => {
    const cases: [unknown, string][] = [
      ['{"mcpServers": ', 'is not valid JSON'],
      [{ mcpServers: { x: { command: 42 } } }, 'mcpServers.x.command: Invalid input: expected string, received number'],
      [{ mcpServers: { x: { type: 'websocket', url: 'ws://x' } } }, 'mcpServers.x'],
      [{ mcpServers: { 'bad name': { command: 'x' } } }, 'a server name is 1 to 64 letters, digits, _ or -'],
      [{ mcpServers: { x: { command: 'x', extra: true } } }, 'mcpServers.x: Unrecognized key: "extra"'],
      [{ mcpServers: { x: { type: 'http' } } }, 'mcpServers.x.url'],
      [{ mcpServers: [] }, 'mcpServers'],
    ];
    for (const [content, why] of cases) {
      const dir = files(content, { mcpServers: { ok: { command: 'ok' } } });
      const config = readMcpConfig(dir);
      expect(config.servers.map((s) => s.name)).toEqual(['ok']);
      expect(config.problems).toHaveLength(1);
      expect(config.problems[0]).toContain(path.join(path.dirname(dir), '.mcp.json'));
      expect(config.problems[0]).toContain(why);
    }
    const big = files(
      { mcpServers: { x: { command: 'x', args: ['y'.repeat(60_000), 'y'.repeat(60_000), 'y'.repeat(60_000), 'y'.repeat(60_000), 'y'.repeat(60_000)] } } },
      undefined,
    );
    expect(readMcpConfig(big).problems[0]).toMatch(/is over 262144 bytes/);
    expect(readMcpFile(path.join(big, 'absent.json'), 'team')).toBeNull();
    // One entry teamd cannot use costs that entry only: an SSE server and the rest of the file are used.
    const mixed = files(
      { mcpServers: { good: { command: 'g' }, odd: { command: 'o', extra: true }, events: { type: 'sse', url: 'http://127.0.0.1:1/sse' } } },
      undefined,
    );
    const config = readMcpConfig(mixed);
    expect(config.servers.map((s) => s.name).sort()).toEqual(['events', 'good']);
    expect(config.problems).toEqual([expect.stringMatching(/mcpServers\.odd: Unrecognized key: "extra"; that server is left out/)]);
  });

  it('expands ${VAR} and ${VAR:-default}, and names a variable that is not set', () => {
    expect(expandVars('Bearer ${TOKEN}', { TOKEN: 't0k' }, 'here')).toBe('Bearer t0k');
    expect(expandVars('${HOST:-localhost}:${PORT:-80}', { PORT: '8080' }, 'here')).toBe('localhost:8080');
    expect(expandVars('${EMPTY:-fallback}', { EMPTY: '' }, 'here')).toBe('fallback');
    expect(expandVars('$PLAIN and $${X}', { X: 'x' }, 'here')).toBe('$PLAIN and $x');
    expect(() => expandVars('${NOPE}', {}, 'the server s in f')).toThrow('the server s in f uses ${NOPE}, which is not set');
  });

  it("chooses the servers a role uses: the role's enabled list replaces the team's, disabled lists add up", () => {
    const dir = files(undefined, { mcpServers: { a: { command: 'a' }, b: { command: 'b' }, c: { command: 'c' } } });
    const config = readMcpConfig(dir);
    const names = (team: SettingsFile | null, role: SettingsFile | null) => serversFor(config, combineSettings(team, role).mcpServers).map((s) => s.name);
    expect(names(null, null)).toEqual(['a', 'b', 'c']);
    expect(names({ enabledMcpjsonServers: ['a', 'b'] }, null)).toEqual(['a', 'b']);
    expect(names({ enabledMcpjsonServers: ['a', 'b'] }, { enabledMcpjsonServers: ['c'] })).toEqual(['c']);
    expect(names({ disabledMcpjsonServers: ['a'] }, { disabledMcpjsonServers: ['b'] })).toEqual(['c']);
    expect(names({}, { enabledMcpjsonServers: [] })).toEqual([]);
  });
});

describe('MCP tools as the Messages API sees them', () => {
  it('names are mcp__<server>__<tool>, valid for the API and unique', () => {
    expect(apiToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    const dotted = apiToolName('fs', 'read.file');
    expect(dotted).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(apiToolName('fs', 'read_file'));
    const long = apiToolName('server', 'x'.repeat(100));
    expect(long).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(long).not.toBe(apiToolName('server', `${'x'.repeat(99)}y`));
    expect(boundedDescription('s', 'd'.repeat(5000))).toHaveLength(MAX_DESCRIPTION);
    expect(boundedDescription('s', '  ')).toBe('The tool of the MCP server s.');
  });

  it('results: structured content as JSON when there is no text, embedded resources, and an error without words', () => {
    expect(resultOf({ content: [], structuredContent: { n: 1 } })).toEqual({ content: '{"n":1}' });
    expect(resultOf({ content: [{ type: 'text', text: 'two' }], structuredContent: { n: 2 } })).toEqual({ content: 'two' });
    expect(
      resultOf({
        content: [
          { type: 'resource', resource: { uri: 'file:///a', text: 'inside' } },
          { type: 'resource', resource: { uri: 'file:///b', blob: 'AAAA', mimeType: 'application/zip' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
      }).content,
    ).toBe('inside\n[binary resource file:///b (application/zip): not shown]\n[resource c: file:///c]');
    expect(resultOf({ content: [], isError: true })).toEqual({ isError: true, content: 'the MCP tool reported an error without saying why' });
    expect(resultOf({ content: [] })).toEqual({ content: '(the MCP tool returned nothing)' });
  });

  it('permission rules: a tool by name, or every tool of a server as mcp__server or mcp__server__*', () => {
    const call = (tool: string) => ({ tool, input: {}, workspace: '/ws', stateDir: '/ws/.team' });
    const rules = (deny: string[]) => parseRules({ deny, defaultMode: 'bypassPermissions' });
    expect(decide(call('mcp__github__create_issue'), rules(['mcp__github__create_issue'])).kind).toBe('deny');
    expect(decide(call('mcp__github__list_issues'), rules(['mcp__github__create_issue'])).kind).toBe('allow');
    for (const wide of ['mcp__github', 'mcp__github__*']) {
      expect(decide(call('mcp__github__list_issues'), rules([wide])).kind).toBe('deny');
      expect(decide(call('mcp__githubby__list_issues'), rules([wide])).kind).toBe('allow');
    }
    // Not allowed by a rule: the mode decides, as for any tool that is not a read (default asks).
    expect(decide(call('mcp__github__list_issues'), parseRules({})).kind).toBe('ask');
    expect(decide(call('mcp__github__list_issues'), parseRules({ allow: ['mcp__github'] })).kind).toBe('allow');
  });
});
