import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { calls, corpusFiles, corpusTeam, install, installed } from '../helpers/corpus.js';
import { waitFor } from '../helpers/wait.js';

const bash = (command: string, allowError = true) => ({ name: 'bash', input: { command }, allowError });
const write = (file: string, content: string, allowError = true) => ({ name: 'write_file', input: { path: file, content }, allowError });

/** A hook's settings file as .claude/settings.json, and its scripts in .claude/hooks/, as the hooks guide lays them out. */
function hooks(settings: string, ...scripts: string[]) {
  return (ws: string): void => {
    install(ws, `hooks/${settings}`, '.claude/settings.json');
    for (const script of scripts) install(ws, `hooks/${script}`, `.claude/hooks/${script}`);
  };
}

describe("Claude Code hook examples (the corpus), unchanged: they read Claude Code's payloads and decide as its hooks reference says", () => {
  it('the file guard (inline python): exit 2 blocks writes of .env and package-lock.json by tool_input.file_path; other writes go ahead', async () => {
    const t = await corpusTeam(
      (ws) => {
        hooks('protect-files.settings.json')(ws);
        fs.writeFileSync(path.join(ws, '.env'), 'KEEP=1\n');
      },
      [{ subject: 'write', description: calls([write('.env', 'STOLEN=1\n'), write('package-lock.json', '{}'), write('ok.txt', 'ok\n', false)]) }],
    );
    const result = (await t.finished(1)).result ?? '';
    expect(result.match(/Blocked by a PreToolUse hook/g)).toHaveLength(2);
    expect(fs.readFileSync(path.join(t.ws, '.env'), 'utf8')).toBe('KEEP=1\n');
    expect(fs.existsSync(path.join(t.ws, 'package-lock.json'))).toBe(false);
    expect(fs.readFileSync(path.join(t.ws, 'ok.txt'), 'utf8')).toBe('ok\n');
  });

  it('the command logger (jq): every Bash command reaches the log as "<command> - <description>"', async () => {
    const t = await corpusTeam(hooks('bash-command-log.settings.json'), [{ subject: 'run', description: calls([bash('echo one', false), bash('ls', false)]) }]);
    expect((await t.finished(1)).status).toBe('completed');
    expect(fs.readFileSync(path.join(t.ws, 'bash-command-log.txt'), 'utf8')).toBe('echo one - No description\nls - No description\n');
  });

  it('the command validator (python script in .claude/hooks): grep and find -name are blocked with its advice on stderr, for the model to read', async () => {
    const t = await corpusTeam(hooks('validate-bash.settings.json', 'validate-bash.py'), [
      { subject: 'search', description: calls([bash('grep -r TODO .'), bash('find . -name "*.md"'), bash('echo fine', false)]) },
    ]);
    const result = (await t.finished(1)).result ?? '';
    expect(result).toContain("Use 'rg' (ripgrep) instead of 'grep'");
    expect(result).toContain("instead of 'find -name'");
    expect(result).toContain('fine');
  });

  it('JSON output: a PreToolUse permissionDecision "deny" refuses the call with its reason, and nothing is run', async () => {
    const t = await corpusTeam(
      (ws) => {
        hooks('json-deny.settings.json')(ws);
        fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
      },
      [{ subject: 'delete', description: calls([bash('rm a.txt'), bash('echo kept', false)]) }],
    );
    const result = (await t.finished(1)).result ?? '';
    expect(result).toContain('Deleting files is not allowed in this project');
    expect(fs.existsSync(path.join(t.ws, 'a.txt'))).toBe(true);
  });

  it('JSON output: a PreToolUse permissionDecision "allow" approves documentation writes without asking; other writes are still asked', async () => {
    const t = await corpusTeam(hooks('auto-approve-docs.settings.json', 'auto-approve-docs.py'), [
      { subject: 'write', description: calls([write('docs/guide.md', '# Guide\n', false), write('src/x.ts', 'x\n')]) },
    ]);
    await t.finished(1);
    expect(fs.readFileSync(path.join(t.ws, 'docs', 'guide.md'), 'utf8')).toBe('# Guide\n');
    expect(t.asks().map((m) => (m.input as { path?: string }).path)).toEqual(['src/x.ts']);
  });

  it('Notification: when a teammate waits for permission, the hook gets the event and its message', async () => {
    const t = await corpusTeam(hooks('notification.settings.json'), [{ subject: 'push', description: calls([bash('git push origin main')]) }]);
    await t.finished(1);
    await waitFor(() => fs.existsSync(path.join(t.ws, 'notifications.log')) || undefined, 'the notification hook ran');
    expect(fs.readFileSync(path.join(t.ws, 'notifications.log'), 'utf8')).toBe('Notification: alice needs your permission to use Bash\n');
  });

  it('Notification matchers match the kind of notification: permission_prompt and "*" fire for a permission wait, idle_prompt does not', async () => {
    const t = await corpusTeam(hooks('notification-matchers.settings.json'), [{ subject: 'push', description: calls([bash('git push origin main')]) }]);
    await t.finished(1);
    await waitFor(
      () => (fs.existsSync(path.join(t.ws, 'permission-alerts.log')) && fs.existsSync(path.join(t.ws, 'all-alerts.log'))) || undefined,
      'the hooks ran',
    );
    expect(fs.readFileSync(path.join(t.ws, 'permission-alerts.log'), 'utf8')).toBe('permission_prompt\n');
    expect(fs.readFileSync(path.join(t.ws, 'all-alerts.log'), 'utf8')).toBe('permission_prompt\n');
    expect(fs.existsSync(path.join(t.ws, 'idle-alerts.log'))).toBe(false);
  });

  it('Stop: decision "block" sends the model back with the reason; the next Stop sees stop_hook_active true and lets it stop', async () => {
    const t = await corpusTeam(hooks('stop-continue.settings.json', 'stop-continue.py'), [{ subject: 'work', description: '```sh\necho done\n```' }]);
    expect((await t.finished(1)).status).toBe('completed');
    await waitFor(() => t.session().includes('[Stop hook] Write SUMMARY.md before you stop.') || undefined, 'the reason in the conversation');
    // Logged only while stop_hook_active was false: once.
    await waitFor(() => fs.existsSync(path.join(t.ws, 'stop-hook.log')) || undefined, 'the Stop hook ran');
    expect(fs.readFileSync(path.join(t.ws, 'stop-hook.log'), 'utf8')).toBe('stop_hook_active=False\n');
  });

  it('UserPromptSubmit: plain stdout is added to the conversation as context; a prompt with a secret gets the hook\'s "block" reason', async () => {
    const t = await corpusTeam(hooks('prompt-context.settings.json', 'prompt-context.py'), [
      { subject: 'plain', description: '```sh\necho plain\n```' },
      { subject: 'with a secret', description: 'Log in with password: hunter2\n```sh\necho secret\n```' },
    ]);
    await t.finished(1);
    await t.finished(2);
    expect(t.session()).toContain('[UserPromptSubmit hook] Project conventions: the code style guide is in STYLE.md');
    expect(t.session()).toContain('[UserPromptSubmit hook] Security policy violation: the prompt contains a secret');
  });

  it('SessionStart: its hookSpecificOutput.additionalContext reaches the model with the first prompt', async () => {
    const t = await corpusTeam(
      (ws) => {
        hooks('session-start.settings.json', 'session-start.sh')(ws);
        fs.writeFileSync(path.join(ws, 'TODO.txt'), 'one\ntwo\nthree\n');
      },
      [{ subject: 'work', description: '```sh\necho hi\n```' }],
    );
    await t.finished(1);
    expect(t.session()).toContain('[SessionStart hook] Session startup: 3 open items in TODO.txt.');
  });

  it('PostToolUse: decision "block" gives its reason to the model after the output; additionalContext is added the same way', async () => {
    const t = await corpusTeam(hooks('post-tool-feedback.settings.json'), [
      { subject: 'write', description: calls([write('TODO-list.txt', 'x\n', false), write('a.txt', 'a\n', false)]) },
    ]);
    const result = (await t.finished(1)).result ?? '';
    expect(result).toContain('[PostToolUse hook feedback] File names must not contain TODO: rename it.');
    expect(result).toContain('[PostToolUse hook] Remember to add a test for every new file.');
  });

  it('a formatter (PostToolUse on Edit|MultiEdit|Write, with a timeout): the Markdown file written is formatted on disk', async () => {
    const t = await corpusTeam(hooks('trailing-space-format.settings.json'), [
      { subject: 'write', description: calls([write('notes.md', '# Notes   \nline\t\n', false)]) },
    ]);
    expect((await t.finished(1)).status).toBe('completed');
    expect(fs.readFileSync(path.join(t.ws, 'notes.md'), 'utf8')).toBe('# Notes\nline\n');
  });

  it('every hook artefact of the corpus was installed by a test above', () => {
    expect(
      corpusFiles()
        .filter((file) => file.startsWith('hooks/'))
        .filter((file) => !installed.has(file)),
    ).toEqual([]);
  });
});
