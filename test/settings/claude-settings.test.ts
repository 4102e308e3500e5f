import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
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
    const extra = fs.mkdtempSync('/var/tmp/teamd-extra-');
    onBeforeTempRemoval(async () => fs.rmSync(extra, { recursive: true, force: true }));
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(typicalSettings(extra), null, 2));
    const check = await runTeamd(['check-settings', '--dir', dir]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/ok, mode acceptEdits, 3 allow, 1 ask, 3 deny rules; hooks: Notification 1, SessionEnd 1/);
    for (const warning of [
      '"model" is not a setting teamd uses; ignored',
      '"env" is not a setting teamd uses; ignored',
      '"statusLine" is not a setting teamd uses; ignored',
      'permissions.disableBypassPermissionsMode is not a setting teamd uses; ignored',
      'hooks.Stop: a "prompt" hook is not run by teamd (only "command" hooks are); ignored',
      'hooks.PreCompact: teamd has no such moment; these hooks never run',
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
