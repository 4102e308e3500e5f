import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { REPO_ROOT, runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const calls = (value: unknown): string => `\`\`\`teamd-calls\n${JSON.stringify(value)}\n\`\`\``;

/** A team of one whose settings are a Claude Code user's, as written for Claude Code. */
async function team(settings: unknown, prepare: (ws: string) => void = () => {}) {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  prepare(ws);
  const { board } = openBoard(dir);
  await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
  expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  const finished = (id: number) =>
    waitFor(() => (['completed', 'failed'].includes(board.get(id).status) ? board.get(id) : undefined), `task ${id} finished`, 60_000);
  return { ws, dir, board, finished };
}

describe("hook scripts written for Claude Code (its hooks guide's examples), unchanged", () => {
  it('the guard that blocks edits of .env, package-lock.json and .git/ reads tool_input.file_path of Write and Edit, and blocks', async () => {
    const guard =
      'jq -r \'.tool_input.file_path // empty\' | { read -r file_path; case "$file_path" in *.env|*package-lock.json|*/.git/*) echo "Blocked: $file_path is protected" >&2; exit 2;; esac; }';
    const { ws, board, finished } = await team(
      { permissions: { defaultMode: 'bypassPermissions' }, hooks: { PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: guard }] }] } },
      (workspace) => fs.writeFileSync(path.join(workspace, '.env'), 'KEEP=1\n'),
    );
    await board.add({
      subject: 'overwrite .env',
      description: calls([
        { name: 'write_file', input: { path: '.env', content: 'STOLEN=1\n' }, allowError: true },
        { name: 'edit_file', input: { path: '.env', old_text: 'KEEP', new_text: 'GONE' }, allowError: true },
        { name: 'write_file', input: { path: 'notes.txt', content: 'fine\n' } },
      ]),
    });
    const task = await finished(1);
    expect(task.status, task.result ?? '').toBe('completed');
    expect(task.result).toMatch(/Blocked by a PreToolUse hook: Blocked: .*\.env is protected/);
    expect(fs.readFileSync(path.join(ws, '.env'), 'utf8')).toBe('KEEP=1\n');
    expect(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8')).toBe('fine\n');
  });

  it('the Prettier PostToolUse hook formats the TypeScript file a teammate wrote', async () => {
    const format =
      'jq -r \'.tool_input.file_path\' | { read -r file_path; if echo "$file_path" | grep -q \'\\.ts$\'; then npx prettier --write "$file_path"; fi; }';
    const { ws, board, finished } = await team(
      {
        permissions: { defaultMode: 'bypassPermissions' },
        hooks: { PostToolUse: [{ matcher: 'Edit|MultiEdit|Write', hooks: [{ type: 'command', command: format }] }] },
      },
      // The project has Prettier installed, as one whose settings run it does (npx finds it in node_modules).
      (workspace) => {
        fs.cpSync(path.join(REPO_ROOT, 'node_modules', 'prettier'), path.join(workspace, 'node_modules', 'prettier'), { recursive: true });
        // As npm install leaves it: the package's command in node_modules/.bin, where npx looks first (offline, nothing else is found).
        fs.mkdirSync(path.join(workspace, 'node_modules', '.bin'));
        fs.symlinkSync('../prettier/bin/prettier.cjs', path.join(workspace, 'node_modules', '.bin', 'prettier'));
        fs.writeFileSync(path.join(workspace, 'package.json'), '{"name":"p","private":true}\n');
      },
    );
    await board.add({ subject: 'write code', description: calls([{ name: 'write_file', input: { path: 'src/a.ts', content: 'const   x = {a:1,b:2}\n' } }]) });
    expect((await finished(1)).status).toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'src', 'a.ts'), 'utf8')).toBe('const x = { a: 1, b: 2 };\n');
  });

  it('a PreToolUse hook that denies decides before anyone is asked; its JSON updatedInput, in Claude Code shape, changes the call', async () => {
    const deny = `jq -r '.tool_input.command' | grep -q deploy && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no deploys from agents"}}' || true`;
    const rewrite = `jq -r '.tool_input.command' | grep -q '^echo original' && echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > rewritten.txt"}}}' || true`;
    const { ws, dir, board, finished } = await team({
      // Every bash call would be asked of the lead: the hook answers first.
      permissions: { defaultMode: 'default', ask: ['Bash'] },
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: deny },
              { type: 'command', command: rewrite },
            ],
          },
        ],
      },
    });
    await board.add({ subject: 'deploy', description: calls([{ name: 'bash', input: { command: 'echo deploy > deployed.txt' } }]) });
    const denied = await finished(1);
    expect(denied.status).toBe('failed');
    expect(denied.result).toMatch(/Permission denied by a hook: no deploys from agents/);
    expect(fs.existsSync(path.join(ws, 'deployed.txt'))).toBe(false);
    await board.add({ subject: 'rewrite', description: calls([{ name: 'bash', input: { command: 'echo original > original.txt' } }]) });
    expect((await finished(2)).status).toBe('completed');
    expect(fs.readFileSync(path.join(ws, 'rewritten.txt'), 'utf8')).toBe('rewritten\n');
    expect(fs.existsSync(path.join(ws, 'original.txt'))).toBe(false);
    // Nobody was asked: no permission request reached the lead.
    const leadInbox = path.join(dir, 'inbox', 'lead.jsonl');
    expect(fs.existsSync(leadInbox) ? fs.readFileSync(leadInbox, 'utf8') : '').not.toContain('permission_request');
  });
});
