import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeOutsideTmpDir, makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

describe("what a teammate's commands see, by Claude Code's sandbox.filesystem settings (real daemon, real bubblewrap)", () => {
  it("allowWrite, denyWrite, denyRead and allowRead change the view; git's hooks and config cannot be rewritten; check-settings shows the view", async () => {
    const ws = makeTempDir('teamd-ws-');
    const home = makeOutsideTmpDir('teamd-home-');
    const outside = makeOutsideTmpDir('teamd-out-');
    execFileSync('git', ['init', '-q', ws]);
    fs.writeFileSync(path.join(ws, '.env'), 'WORKSPACE-SECRET=1\n');
    fs.mkdirSync(path.join(ws, 'vendor'));
    fs.writeFileSync(path.join(ws, 'vendor', 'lib.js'), 'original\n');
    fs.mkdirSync(path.join(home, '.m2'));
    fs.writeFileSync(path.join(home, '.m2', 'settings.xml'), '<mirror>allowed-to-read</mirror>\n');
    const dir = path.join(ws, '.team');
    const { board } = openBoard(dir);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'settings.json'),
      JSON.stringify({
        permissions: { defaultMode: 'bypassPermissions' },
        sandbox: { filesystem: { allowWrite: [`//${outside.slice(1)}`], denyWrite: ['./vendor'], denyRead: ['.env'], allowRead: ['~/.m2/settings.xml'] } },
      }),
    );
    const check = await runTeamd(['check-settings', '--dir', dir], { env: { HOME: home } });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`read-write: ${ws}, ${outside}, a private /tmp`);
    expect(check.stdout).toMatch(new RegExp(`read-only inside writable places: ${ws}/\\.git/hooks, ${ws}/\\.git/config, ${ws}/vendor`));
    expect(check.stdout).toContain(`${ws}/.env`);
    expect(check.stdout).toContain(`shown again: ${home}/.m2/settings.xml`);

    await board.add({
      subject: 'use the view',
      description: sh(
        `echo made > ${outside}/out.txt`,
        'echo changed > vendor/lib.js 2>/dev/null; echo "rc=$?" > vendor-write.txt',
        'cat .env > env-read.txt 2>&1; true',
        'cat "$HOME/.m2/settings.xml" > m2.txt',
        'echo "#!/bin/sh" > .git/hooks/pre-commit 2>/dev/null; echo "rc=$?" > hook-write.txt',
        'git config core.hooksPath /tmp/evil > git-config.txt 2>&1; echo "rc=$?" >> git-config.txt',
      ),
    });
    await startDaemon(dir, { env: { HOME: home } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    await waitFor(() => ['completed', 'failed'].includes(board.get(1).status), 'the task finished', 30_000);
    expect(board.get(1).status, board.get(1).result ?? '').toBe('completed');
    expect(fs.readFileSync(path.join(outside, 'out.txt'), 'utf8')).toBe('made\n');
    expect(fs.readFileSync(path.join(ws, 'vendor-write.txt'), 'utf8')).not.toBe('rc=0\n');
    expect(fs.readFileSync(path.join(ws, 'vendor', 'lib.js'), 'utf8')).toBe('original\n');
    expect(fs.readFileSync(path.join(ws, 'env-read.txt'), 'utf8')).not.toContain('WORKSPACE-SECRET');
    expect(fs.readFileSync(path.join(ws, 'm2.txt'), 'utf8')).toContain('allowed-to-read');
    expect(fs.readFileSync(path.join(ws, 'hook-write.txt'), 'utf8')).not.toBe('rc=0\n');
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'git-config.txt'), 'utf8')).not.toMatch(/rc=0\n$/);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
  });

  it('a sandbox path written as a pattern is refused in one line naming its line in the file', async () => {
    const ws = makeTempDir('teamd-ws-');
    const dir = path.join(ws, '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), '{\n  "sandbox": {\n    "filesystem": { "denyRead": ["**/.env"] }\n  }\n}\n');
    const check = await runTeamd(['check-settings', '--dir', dir]);
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/settings\.json:3: sandbox\.filesystem\.denyRead\.0: a sandbox path is a path, not a pattern/);
    expect(check.stderr.trim().split('\n')).toHaveLength(1);
  });
});
