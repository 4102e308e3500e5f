import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTeamd } from '../helpers/processes.js';
import { calls, corpusFiles, corpusTeam, install, installed } from '../helpers/corpus.js';

const bash = (command: string, allowError = true) => ({ name: 'bash', input: { command }, allowError });
const asSettings = (artefact: string) => (ws: string) => install(ws, artefact, '.claude/settings.json');

/** The lines of a task's result, by the call each reports (teamd-calls: "tool: output"). */
function outcome(result: string | null): string {
  return result ?? '';
}

describe("Claude Code settings files (the corpus), as .claude/settings.json, unchanged: rules decide as Claude Code's permission docs say", () => {
  it('Bash rules: an exact rule, a prefix rule (npm run test:* covers npm run test:unit), a deny; anything else is asked in the mode default', async () => {
    const t = await corpusTeam(
      (ws) => {
        asSettings('settings/bash-rules.json')(ws);
        fs.writeFileSync(
          path.join(ws, 'package.json'),
          JSON.stringify({ name: 'p', private: true, scripts: { 'test:unit': 'echo unit-ok', build: 'echo build-ok', lint: 'echo lint-ok' } }),
        );
      },
      [
        {
          subject: 'run things',
          description: calls([
            bash('npm run test:unit'),
            bash('npm run build'),
            bash('git diff --stat'),
            bash('curl -s http://example.com'),
            bash('npm run lint'),
          ]),
        },
      ],
    );
    const result = outcome((await t.finished(1)).result);
    expect(result).toContain('unit-ok');
    expect(result).toContain('build-ok');
    expect(result).toMatch(/bash: Permission denied: denied by the rule Bash\(curl:\*\)/);
    expect(result).not.toContain('lint-ok');
    // Only the command no rule allows was asked; nothing the rules allowed.
    expect(t.asks().map((m) => (m.input as { command?: string }).command)).toEqual(['npm run lint']);
  });

  it('Read rules: ./.env, ./.env.* and ./secrets/** are kept from the file tools (grep included); other reads and allowed edits go ahead', async () => {
    const t = await corpusTeam(
      (ws) => {
        asSettings('settings/read-rules.json')(ws);
        fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=one\n');
        fs.writeFileSync(path.join(ws, '.env.local'), 'TOKEN=two\n');
        fs.mkdirSync(path.join(ws, 'secrets'));
        fs.writeFileSync(path.join(ws, 'secrets', 'key.txt'), 'TOKEN=three\n');
        fs.writeFileSync(path.join(ws, 'README.md'), 'TOKEN=public\n');
      },
      [
        {
          subject: 'read around',
          description: calls([
            { name: 'read_file', input: { path: '.env' }, allowError: true },
            { name: 'read_file', input: { path: '.env.local' }, allowError: true },
            { name: 'read_file', input: { path: 'secrets/key.txt' }, allowError: true },
            { name: 'read_file', input: { path: 'README.md' } },
            { name: 'grep', input: { pattern: 'TOKEN=' } },
            { name: 'write_file', input: { path: 'notes.txt', content: 'n\n' } },
          ]),
        },
      ],
    );
    const result = outcome((await t.finished(1)).result);
    for (const rule of ['Read(./.env)', 'Read(./.env.*)', 'Read(./secrets/**)']) expect(result).toContain(`denied by the rule ${rule}`);
    expect(result).toContain('TOKEN=public');
    for (const secret of ['TOKEN=one', 'TOKEN=two', 'TOKEN=three']) expect(result).not.toContain(secret);
    expect(fs.readFileSync(path.join(t.ws, 'notes.txt'), 'utf8')).toBe('n\n');
  });

  it('Edit rules: Edit(src/**) allows writes under src, Edit(*.lock) denies lock files anywhere, other writes are asked', async () => {
    const t = await corpusTeam(asSettings('settings/edit-rules.json'), [
      {
        subject: 'write',
        description: calls([
          { name: 'write_file', input: { path: 'src/a.ts', content: 'a\n' } },
          { name: 'write_file', input: { path: 'deps/yarn.lock', content: 'x\n' }, allowError: true },
          { name: 'write_file', input: { path: 'docs/guide.md', content: 'g\n' }, allowError: true },
        ]),
      },
    ]);
    const result = outcome((await t.finished(1)).result);
    expect(fs.readFileSync(path.join(t.ws, 'src', 'a.ts'), 'utf8')).toBe('a\n');
    expect(result).toContain('denied by the rule Edit(*.lock)');
    expect(fs.existsSync(path.join(t.ws, 'deps', 'yarn.lock'))).toBe(false);
    expect(t.asks().map((m) => (m.input as { path?: string }).path)).toEqual(['docs/guide.md']);
  });

  it('defaultMode acceptEdits: file edits go ahead, commands are asked', async () => {
    const t = await corpusTeam(asSettings('settings/mode-accept-edits.json'), [
      { subject: 'edit, run', description: calls([{ name: 'write_file', input: { path: 'a.txt', content: 'a\n' } }, bash('echo ran')]) },
    ]);
    const result = outcome((await t.finished(1)).result);
    expect(fs.existsSync(path.join(t.ws, 'a.txt'))).toBe(true);
    expect(result).not.toContain('\nran');
    expect(t.asks().map((m) => m.tool)).toEqual(['bash']);
  });

  it('defaultMode plan: reads only; writes and commands are refused, not asked', async () => {
    const t = await corpusTeam(
      (ws) => {
        asSettings('settings/mode-plan.json')(ws);
        fs.writeFileSync(path.join(ws, 'plan.txt'), 'read me\n');
      },
      [
        {
          subject: 'look, then try',
          description: calls([
            { name: 'read_file', input: { path: 'plan.txt' } },
            { name: 'write_file', input: { path: 'b.txt', content: 'b\n' }, allowError: true },
            bash('echo ran'),
          ]),
        },
      ],
    );
    const result = outcome((await t.finished(1)).result);
    expect(result).toContain('read me');
    expect(result.match(/the mode plan allows only reads/g)).toHaveLength(2);
    expect(fs.existsSync(path.join(t.ws, 'b.txt'))).toBe(false);
    expect(t.asks()).toEqual([]);
  });

  it("a typical user's file (model, env, statusLine, a prompt hook): accepted with a warning for each part teamd does not use; its rules and mode hold", async () => {
    const t = await corpusTeam(asSettings('settings/typical-user.json'), [
      {
        subject: 'work',
        description: calls([bash('echo allowed-by-rule'), bash('rm -rf build'), { name: 'write_file', input: { path: 'c.txt', content: 'c\n' } }]),
      },
    ]);
    const checked = await runTeamd(['check-settings', '--dir', t.dir]);
    expect(checked.code, checked.stderr).toBe(0);
    for (const key of ['"model"', '"env"', '"includeCoAuthoredBy"', '"cleanupPeriodDays"', '"statusLine"'])
      expect(checked.stdout).toContain(`warning: ${key} is not a setting teamd uses; ignored`);
    expect(checked.stdout).toContain('hooks.Stop: a "prompt" hook is not run by teamd');
    const result = outcome((await t.finished(1)).result);
    expect(result).toContain('allowed-by-rule');
    expect(result).toContain('denied by the rule Bash(rm -rf:*)');
    expect(fs.existsSync(path.join(t.ws, 'c.txt'))).toBe(true);
  });

  it('sandbox.filesystem: denyRead hides a folder from commands, denyWrite keeps one read-only; the rest of the workspace is writable', async () => {
    const t = await corpusTeam(
      (ws) => {
        asSettings('settings/sandbox.json')(ws);
        fs.mkdirSync(path.join(ws, 'private'));
        fs.writeFileSync(path.join(ws, 'private', 'key.txt'), 'hidden-key\n');
        fs.mkdirSync(path.join(ws, 'vendor'));
      },
      [{ subject: 'probe', description: calls([bash('cat private/key.txt'), bash('echo x > vendor/y.txt'), bash('echo ok > fine.txt && cat fine.txt')]) }],
    );
    const result = outcome((await t.finished(1)).result);
    expect(result).not.toContain('hidden-key');
    expect(fs.existsSync(path.join(t.ws, 'vendor', 'y.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(t.ws, 'fine.txt'), 'utf8')).toBe('ok\n');
  });

  it('every settings artefact of the corpus was installed by a test above', () => {
    const mine = corpusFiles().filter((file) => file.startsWith('settings/') && file !== 'settings/mcp-rules.json');
    expect(mine.filter((file) => !installed.has(file))).toEqual([]);
  });
});
