import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, corpusFiles, corpusTeam, install, installed } from '../helpers/corpus.js';
import { FIXTURES, startFixture } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const SERVER = path.join(FIXTURES, 'mcp-server.mjs');

describe('SKILL.md files (the corpus) in .claude/skills/, unchanged', () => {
  it('folded and literal blocks, a comment after the name, quoted strings and extra fields: each in the catalog as the YAML says; load_skill gives the body and its files', async () => {
    const t = await corpusTeam(
      (ws) => {
        for (const folder of ['folded', 'literal', 'commented']) install(ws, `skills/${folder}/SKILL.md`, `.claude/skills/${folder}/SKILL.md`);
        install(ws, 'skills/extra-fields/SKILL.md', '.claude/skills/api-review/SKILL.md');
        install(ws, 'skills/extra-fields/reference.md', '.claude/skills/api-review/reference.md');
      },
      [{ subject: 'review', description: calls([{ name: 'load_skill', input: { name: 'api-review' } }]) }],
    );
    const result = (await t.finished(1)).result ?? '';
    expect(result).toContain('Check each endpoint against reference.md');
    expect(result).toContain('reference.md');
    const system = (await waitFor(() => t.requests().find((r) => r.teammate === 'alice'), "alice's request")).system;
    expect(system).toContain(
      '- release-notes: Writes release notes from the git log since the last tag, grouped into features, fixes and breaking changes. Use when a task asks for a changelog or release notes.',
    );
    expect(system).toContain('- sql-style: SQL conventions for this project.\nKeywords in upper case; one clause per line.');
    expect(system).toContain('- pdf-forms: Fills PDF forms: reads the fields, then writes the values given.');
    expect(system).toContain('- api-review: Reviews an HTTP API change: naming, status codes, pagination and errors.');
  });
});

describe('.mcp.json files (the corpus) in the workspace, unchanged but for a port or a path', () => {
  it('a stdio server (node), and the permission rules of mcp-rules.json: mcp__notes allows the server, mcp__notes__fail denies one tool', async () => {
    const t = await corpusTeam(
      (ws) => {
        install(ws, 'mcp/stdio.mcp.json', '.mcp.json', { SERVER });
        install(ws, 'settings/mcp-rules.json', '.claude/settings.json');
      },
      [
        {
          subject: 'use notes',
          description: calls([
            { name: 'mcp__notes__echo', input: { text: 'hi' } },
            { name: 'mcp__notes__fail', input: {}, allowError: true },
          ]),
        },
      ],
    );
    const result = (await t.finished(1)).result ?? '';
    expect(result).toContain('echo(stdio): hi');
    expect(result).toContain('denied by the rule mcp__notes__fail');
    expect(t.asks()).toEqual([]);
  });

  it('an npx -y server installs in the sandbox and answers', async () => {
    const t = await corpusTeam(
      (ws) => {
        fs.cpSync(path.join(FIXTURES, 'npx-mcp-server'), path.join(ws, 'npx-server'), { recursive: true });
        install(ws, 'mcp/npx.mcp.json', '.mcp.json', { PACKAGE: path.join(ws, 'npx-server') });
      },
      [{ subject: 'where', description: calls([{ name: 'mcp__packaged__where', input: {} }]) }],
      // MCP tools are asked for by default, in Claude Code too: the person allowed this server.
      { allow: ['mcp__packaged'] },
    );
    const task = await t.finished(1);
    expect(task.status, task.result ?? '').toBe('completed');
    expect(task.result).toMatch(/npx server: home /);
  });

  it('an HTTP server with headers expanded from ${VAR:-default}, and an SSE server, both answer', async () => {
    const scratch = makeTempDir('teamd-corpus-ports-');
    {
      const httpPort = path.join(scratch, 'http-port');
      const ssePort = path.join(scratch, 'sse-port');
      startFixture('mcp-server.mjs', ['--http', httpPort]);
      startFixture('mcp-server.mjs', ['--sse', ssePort]);
      const port = (file: string) => waitFor(() => (fs.existsSync(file) && fs.readFileSync(file, 'utf8')) || undefined, `the port in ${file}`);
      const [http, sse] = [await port(httpPort), await port(ssePort)];
      const t1 = await corpusTeam(
        (ws) => install(ws, 'mcp/http.mcp.json', '.mcp.json', { PORT: http }),
        [{ subject: 'remote', description: calls([{ name: 'mcp__remote__echo', input: { text: 'over http' } }]) }],
        // A workspace's HTTP server is reached only where the team's network allows (docs/trust-model.md): here, this machine.
        { allow: ['mcp__remote'], network: { allowedDomains: ['127.0.0.1'], allowLocalBinding: true } },
      );
      expect((await t1.finished(1)).result).toContain('echo(http:corpus): over http');
      const t2 = await corpusTeam(
        (ws) => install(ws, 'mcp/sse.mcp.json', '.mcp.json', { PORT: sse }),
        [{ subject: 'events', description: calls([{ name: 'mcp__events__echo', input: { text: 'over sse' } }]) }],
        { allow: ['mcp__events'], network: { allowedDomains: ['127.0.0.1'], allowLocalBinding: true } },
      );
      expect((await t2.finished(1)).result).toContain('echo(sse): over sse');
    }
  });

  it('${VAR:-default} in command and env: unset variables take their defaults', async () => {
    const t = await corpusTeam(
      (ws) => install(ws, 'mcp/env-expansion.mcp.json', '.mcp.json', { SERVER }),
      [{ subject: 'tag', description: calls([{ name: 'mcp__tagged__env', input: { name: 'FIXTURE_TAG' } }]) }],
      { allow: ['mcp__tagged'] },
    );
    expect((await t.finished(1)).result).toContain('FIXTURE_TAG=untagged');
  });

  it('every skill and MCP artefact of the corpus was installed by a test above, and the corpus holds at least 30 artefacts', () => {
    const mine = corpusFiles().filter((file) => file.startsWith('skills/') || file.startsWith('mcp/') || file === 'settings/mcp-rules.json');
    expect(mine.filter((file) => !installed.has(file))).toEqual([]);
    expect(corpusFiles().length).toBeGreaterThanOrEqual(30);
  });
});
