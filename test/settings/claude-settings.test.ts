import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeOutsideTmpDir, makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

/** A settings file as a Claude Code user has it: keys teamd does not use, a prompt hook, a Notification hook, additionalDirectories. */
function typicalSettings(extraDir: string): unknown {
  return {
    $schema: 'https://json.schemastore.org/claude-code-settings.json',
    model: 'claude-sonnet-4-5',
    env: { FOO: 'bar' },
    statusLine: { type: 'command', command: '~/.claude/statusline.sh' },
    includeCoAuthoredBy: false,
    permissions: {
      allow: ['Bash(npm run test:*)', 'Bash(echo:*)', 'Read(~/.zshrc)'],
      deny: ['Bash(curl:*)', 'Read(./.env)', 'Read(./secrets/**)'],
      ask: ['Bash(git push:*)'],
      additionalDirectories: [extraDir],
      defaultMode: 'acceptEdits',
      disableBypassPermissionsMode: 'disable',
    },
    hooks: {
      Notification: [{ hooks: [{ type: 'command', command: 'jq -r .message > "$CLAUDE_PROJECT_DIR/notified.txt"' }] }],
      Stop: [{ hooks: [{ type: 'prompt', prompt: 'Check that every task is done.' }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: 'jq -r .reason > "$CLAUDE_PROJECT_DIR/ended.txt"' }] }],
      PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: 'true' }] }],
    },
  };
}

describe("a Claude Code user's settings file, as it is", () => {
  it('is accepted with a warning for each part teamd does not do; the Notification hook fires when a teammate waits for permission, SessionEnd when it stops; additionalDirectories is writable to commands', async () => {
    const ws = makeTempDir('teamd-ws-');
    const extra = makeOutsideTmpDir('teamd-extra-');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(typicalSettings(extra), null, 2));
    const check = await runTeamd(['check-settings', '--dir', dir]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/ok, mode acceptEdits, 3 allow, 1 ask, 3 deny rules; hooks: Notification 1, SessionEnd 1, PreCompact 1/);
    for (const warning of [
      '"model" is not a setting teamd uses; ignored',
      '"env" is not a setting teamd uses; ignored',
      '"statusLine" is not a setting teamd uses; ignored',
      'permissions.disableBypassPermissionsMode is not a setting teamd uses; ignored',
      'hooks.Stop: a "prompt" hook is not run by teamd (only "command" hooks are); ignored',
    ])
      expect(check.stdout).toContain(`warning: ${warning}`);
    expect(check.stdout).toContain(`read-write: ${ws}, ${extra}, a private /tmp`);

    const { board } = openBoard(dir);
    await board.add({ subject: 'write outside, then push', description: sh(`echo made > ${extra}/made.txt`, 'git push origin main') });
    await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    // git push is asked of the lead: the Notification hook says so.
    await waitFor(() => fs.existsSync(path.join(ws, 'notified.txt')) || undefined, 'the Notification hook ran');
    await waitFor(
      () => fs.readFileSync(path.join(ws, 'notified.txt'), 'utf8') === 'alice needs your permission to use Bash\n' || undefined,
      'the notification written',
    );
    expect(fs.readFileSync(path.join(extra, 'made.txt'), 'utf8')).toBe('made\n');
    expect(fs.readFileSync(path.join(dir, 'logs', 'alice.log'), 'utf8')).toContain('settings: a part of the file has no effect');
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(fs.readFileSync(path.join(ws, 'ended.txt'), 'utf8')).toBe('stopped\n');
  });
});

describe('permissions.additionalDirectories for the file tools (issue 46)', () => {
  it('read_file, write_file, edit_file and grep work in an additional directory by its absolute path; a path in none is still refused; the state folder stays off limits', async () => {
    const ws = makeTempDir('teamd-ws-');
    const extra = makeOutsideTmpDir('teamd-extra-');
    const elsewhere = makeOutsideTmpDir('teamd-elsewhere-');
    fs.writeFileSync(path.join(extra, 'notes.md'), 'alpha\nbeta\n');
    fs.mkdirSync(path.join(extra, 'secret'));
    fs.writeFileSync(path.join(extra, 'secret', 'key.txt'), 'gamma-key\n');
    fs.writeFileSync(path.join(extra, 'cert.pem'), 'gamma-pem\n');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    // Read rules in Claude Code's forms for places outside the workspace: from the root (//), and at any depth.
    fs.writeFileSync(
      path.join(dir, 'settings.json'),
      JSON.stringify({
        permissions: { defaultMode: 'bypassPermissions', additionalDirectories: [extra], deny: [`Read(/${extra}/secret/**)`, 'Read(*.pem)'] },
      }),
    );
    const calls = [
      { name: 'read_file', input: { path: path.join(extra, 'notes.md') } },
      { name: 'write_file', input: { path: path.join(extra, 'sub', 'new.txt'), content: 'written\n' } },
      { name: 'edit_file', input: { path: path.join(extra, 'notes.md'), old_text: 'beta', new_text: 'gamma' } },
      { name: 'grep', input: { pattern: 'gamma', path: extra } },
      { name: 'write_file', input: { path: path.join(elsewhere, 'no.txt'), content: 'no' }, allowError: true },
      { name: 'read_file', input: { path: path.join(dir, 'config.json') }, allowError: true },
      { name: 'read_file', input: { path: path.join(extra, 'secret', 'key.txt') }, allowError: true },
      { name: 'read_file', input: { path: path.join(extra, 'cert.pem') }, allowError: true },
    ];
    const { board } = openBoard(dir);
    await board.add({ subject: 'outside', description: `\`\`\`teamd-calls\n${JSON.stringify(calls)}\n\`\`\`` });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => board.get(1).status === 'completed' || undefined, 'the task done');
    expect(fs.readFileSync(path.join(extra, 'sub', 'new.txt'), 'utf8')).toBe('written\n');
    expect(fs.readFileSync(path.join(extra, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
    expect(fs.existsSync(path.join(elsewhere, 'no.txt'))).toBe(false);
    const result = board.get(1).result ?? '';
    expect(result).toContain('alpha\nbeta');
    expect(result).toContain(`${path.join(extra, 'notes.md')}:2: gamma`);
    expect(result).toMatch(/write_file: Permission denied: write_file may only change files inside the workspace /);
    expect(result).toMatch(/read_file: path ".*config\.json" is inside the team's state folder/);
    // The deny rules hold outside the workspace too: neither read, nor shown by grep.
    expect(result).toContain(`read_file: Permission denied: denied by the rule Read(/${extra}/secret/**)`);
    expect(result).toContain('read_file: Permission denied: denied by the rule Read(*.pem)');
    expect(result).not.toContain('gamma-key');
    expect(result).not.toContain('gamma-pem');
  });
});

describe("Claude Code's own settings files, where Claude Code keeps them", () => {
  it('.claude/settings.json, .claude/settings.local.json and ~/.claude/settings.json are obeyed under the team file: lists add up, the team file has the last word on the mode, and no teammate can rewrite them', async () => {
    const ws = makeTempDir('teamd-ws-');
    const home = makeOutsideTmpDir('teamd-home-');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(path.join(ws, '.claude'));
    fs.mkdirSync(path.join(home, '.claude'));
    // The project's: a deny rule and a mode the team file overrides.
    fs.writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'], defaultMode: 'plan' } }));
    // The project's local file: another deny.
    fs.writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ permissions: { deny: ['Bash(shred:*)'] } }));
    // The user's: a PostToolUse hook that logs every command.
    fs.writeFileSync(
      path.join(home, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'jq -r .tool_input.command >> "$CLAUDE_PROJECT_DIR/commands.log"' }] }] },
      }),
    );
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
    const check = await runTeamd(['check-settings', '--dir', dir], { env: { HOME: home } });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`${path.join(home, '.claude', 'settings.json')}: ok`);
    expect(check.stdout).toContain(`${path.join(ws, '.claude', 'settings.local.json')}: ok, mode default, 0 allow, 0 ask, 1 deny rules`);

    const { board } = openBoard(dir);
    fs.writeFileSync(path.join(ws, 'keep.txt'), 'kept\n');
    await board.add({ subject: 'remove', description: sh('rm keep.txt') });
    await board.add({ subject: 'shred', description: sh('shred keep.txt') });
    await board.add({ subject: 'work', description: sh('echo worked > worked.txt') });
    await board.add({
      subject: 'widen my rules',
      description: `\`\`\`teamd-calls\n${JSON.stringify([{ name: 'write_file', input: { path: '.claude/settings.local.json', content: '{"permissions":{"allow":["Bash"]}}' }, allowError: true }])}\n\`\`\``,
    });
    await startDaemon(dir, { env: { HOME: home }, settings: { idleTimeoutMs: 0 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => [1, 2, 3, 4].every((id) => ['completed', 'failed'].includes(board.get(id).status)) || undefined, 'the four tasks finished');
    expect(board.get(1)).toMatchObject({ status: 'failed', result: expect.stringContaining('denied by the rule Bash(rm:*)') });
    expect(board.get(2)).toMatchObject({ status: 'failed', result: expect.stringContaining('denied by the rule Bash(shred:*)') });
    // bypassPermissions of the team file, not the project's plan mode: the work ran.
    expect(board.get(3).status).toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'keep.txt'), 'utf8')).toBe('kept\n');
    expect(fs.readFileSync(path.join(ws, 'commands.log'), 'utf8')).toBe('echo worked > worked.txt\n');
    expect(board.get(4).result).toMatch(/\.claude.*which the person's own tools run or obey/);
    expect(JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.local.json'), 'utf8'))).toEqual({ permissions: { deny: ['Bash(shred:*)'] } });
  });
});

describe('the SubagentStop and PreCompact hooks', () => {
  it('SubagentStop runs when a helper of the task tool ends; PreCompact before older messages are summarized away', async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'settings.json'),
      JSON.stringify({
        permissions: { defaultMode: 'bypassPermissions' },
        hooks: {
          SubagentStop: [{ hooks: [{ type: 'command', command: 'jq -c "{hook_event_name, description}" >> "$CLAUDE_PROJECT_DIR/subagent.log"' }] }],
          PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: 'jq -c "{hook_event_name, trigger}" >> "$CLAUDE_PROJECT_DIR/compact.log"' }] }],
        },
      }),
    );
    const { board } = openBoard(dir);
    await board.add({
      subject: 'ask a helper',
      description: `\`\`\`teamd-calls\n${JSON.stringify([{ name: 'task', input: { description: 'look around', prompt: 'List the files.' } }])}\n\`\`\``,
    });
    // A conversation that overflows inside one task (as test/teammate/model-behaviour.test.ts makes one): the older part is summarized.
    await board.add({
      subject: 'talk a lot',
      description: `\`\`\`sh\n${Array.from({ length: 40 }, (_, i) => `echo ${i} >> progress.txt; seq 1 300`).join('\n')}\n\`\`\``,
    });
    await startDaemon(dir, { settings: { idleTimeoutMs: 0, compactThresholdTokens: 5_000, offlineContextTokens: 10_000 } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => [1, 2].every((id) => ['completed', 'failed'].includes(board.get(id).status)) || undefined, 'both tasks finished', 60_000);
    expect(fs.readFileSync(path.join(ws, 'subagent.log'), 'utf8')).toBe('{"hook_event_name":"SubagentStop","description":"look around"}\n');
    expect(fs.readFileSync(path.join(ws, 'compact.log'), 'utf8')).toContain('{"hook_event_name":"PreCompact","trigger":"auto"}');
  });
});
