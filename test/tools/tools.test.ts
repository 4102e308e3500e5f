import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/tools/registry.js';
import { startFixture, waitForLine } from '../helpers/processes.js';
import { globToRegExp } from '../../src/tools/search-tools.js';
import { isAlive } from '../../src/proc/process-identity.js';
import { openTaskBoard } from '../helpers/board.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { createShellLauncher } from '../../src/sandbox/shell-launcher.js';
import { toolContext as context } from '../helpers/tool-context.js';
import { PolicyGate } from '../../src/policy/tool-gate.js';
import { SettingsSource } from '../../src/settings/settings-source.js';
import type { PermissionAsker } from '../../src/permissions/permission-asker.js';
import { silentLogger } from '../../src/log/silent-logger.js';

describe('tools', () => {
  it('create_task records its creator, is idempotent per key, and gives a worktree when asked where the workspace is a git repository', async () => {
    const registry = new ToolRegistry();
    const ctx = context({ name: 'lead' });
    const add = async (input: Record<string, unknown>) => registry.run('create_task', input, ctx);
    const first = await add({ subject: 'build', key: 'goal/build' });
    expect(JSON.parse(first.content)).toMatchObject({ id: 1, createdBy: 'lead', key: 'goal/build' });
    expect(JSON.parse((await add({ subject: 'build again', key: 'goal/build' })).content)).toMatchObject({ id: 1, subject: 'build' });
    const refused = await add({ subject: 'in a worktree', worktree: true });
    expect(refused).toEqual({ isError: true, content: `${ctx.workspace} is not a git repository: a task there cannot have a worktree` });
    const git = (...args: string[]) => execFileSync('git', ['-C', ctx.workspace, ...args], { stdio: 'ignore' });
    git('init', '-q');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'first');
    const made = JSON.parse((await add({ subject: 'in a worktree', worktree: true })).content) as { id: number; worktree?: { base: string } };
    expect(made.worktree?.base).toMatch(/\S/);
  });

  it('confine paths to the workspace: no ../, no absolute paths outside, no symlinks, no state folder whatever its name', async () => {
    const ws = makeTempDir('teamd-ws-');
    const stateDir = path.join(ws, 'state');
    const { board } = openTaskBoard(stateDir);
    await board.add({ subject: 'a' });
    fs.symlinkSync('/etc', path.join(ws, 'etc-link'));
    fs.symlinkSync(stateDir, path.join(ws, 'state-link'));
    const ctx = context({ workspace: ws, stateDir, board });
    const tools = new ToolRegistry();
    const refused = async (tool: string, input: Record<string, unknown>, why: string): Promise<void> => {
      expect(await tools.run(tool, input, ctx)).toMatchObject({ isError: true, content: expect.stringContaining(why) });
    };
    await refused('read_file', { path: '../outside' }, 'outside the workspace');
    await refused('read_file', { path: '/etc/passwd' }, 'outside the workspace');
    await refused('read_file', { path: 'etc-link/passwd' }, 'symlink');
    await refused('write_file', { path: 'etc-link/x', content: 'x' }, 'symlink');
    await refused('write_file', { path: 'state/tasks/task_1.json', content: '{}' }, 'state folder');
    await refused('write_file', { path: 'state-link/tasks/task_1.json', content: '{}' }, 'symlink');
    await refused('edit_file', { path: 'state/tasks/task_1.json', old_text: 'pending', new_text: 'completed' }, 'state folder');
    await refused('grep', { pattern: 'pending', path: 'state' }, 'state folder');
    expect((await tools.run('grep', { pattern: 'pending' }, ctx)).content).toBe('no matches');
    expect((await board.get(1)).status).toBe('pending');
  });

  it('a Read deny rule (or an ask rule) keeps a file out of grep and glob: neither its name nor its lines are shown', async () => {
    const ws = makeTempDir('teamd-ws-');
    const stateDir = path.join(ws, '.team');
    fs.mkdirSync(stateDir);
    fs.writeFileSync(path.join(ws, '.env'), 'SECRET=hunter2\n');
    fs.mkdirSync(path.join(ws, 'config'));
    fs.writeFileSync(path.join(ws, 'config', 'prod.env'), 'SECRET=prod-secret\n');
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'SECRET is set in .env\n');
    const settingsFile = path.join(stateDir, 'settings.json');
    fs.writeFileSync(settingsFile, JSON.stringify({ permissions: { deny: ['Read(./.env)'], ask: ['Grep(config/**)'], defaultMode: 'bypassPermissions' } }));
    const gate = new PolicyGate({
      identity: { name: 'alice', role: 'coder', workspace: ws, stateDir, sessionId: 's', taskId: () => null, root: () => ws },
      settings: new SettingsSource([settingsFile], silentLogger),
      // Nothing here asks: a call an ask rule covers would fail the test at once.
      asker: {} as PermissionAsker,
      hookEnv: { workspace: ws, env: {}, logger: silentLogger },
      logger: silentLogger,
    });
    const tools = new ToolRegistry(undefined, () => true, gate);
    const ctx = context({ workspace: ws, stateDir });
    const grep = (await tools.run('grep', { pattern: 'SECRET' }, ctx)).content;
    expect(grep).toBe('notes.txt:1: SECRET is set in .env');
    expect((await tools.run('glob', { pattern: '**/*env*' }, ctx)).content).toBe('config/prod.env');
    expect((await tools.run('glob', { pattern: '**/*' }, ctx)).content.split('\n')).not.toContain('.env');
    expect(await tools.run('read_file', { path: '.env' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('Permission denied') });
  });

  it('read_file and grep do not read a file hard-linked from outside the workspace; a file whose names are all inside reads as usual', async () => {
    const outside = makeTempDir('teamd-outside-');
    const ws = makeTempDir('teamd-ws-');
    const stateDir = path.join(ws, 'state');
    fs.writeFileSync(path.join(outside, 'id_rsa'), 'PRIVATE KEY\n');
    fs.linkSync(path.join(outside, 'id_rsa'), path.join(ws, 'innocent.txt'));
    fs.writeFileSync(path.join(ws, 'twice.txt'), 'PRIVATE? no, shared inside\n');
    fs.mkdirSync(path.join(ws, 'sub'));
    fs.linkSync(path.join(ws, 'twice.txt'), path.join(ws, 'sub', 'twice.txt'));
    const ctx = context({ workspace: ws, stateDir });
    const tools = new ToolRegistry();
    expect(await tools.run('read_file', { path: 'innocent.txt' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('hard link') });
    expect((await tools.run('grep', { pattern: 'PRIVATE' }, ctx)).content.split('\n').sort()).toEqual([
      'sub/twice.txt:1: PRIVATE? no, shared inside',
      'twice.txt:1: PRIVATE? no, shared inside',
    ]);
    expect((await tools.run('read_file', { path: 'sub/twice.txt' }, ctx)).content).toContain('shared inside');
    // A write replaces the name: the file outside keeps what it had.
    await tools.run('write_file', { path: 'innocent.txt', content: 'mine now' }, ctx);
    expect(fs.readFileSync(path.join(outside, 'id_rsa'), 'utf8')).toBe('PRIVATE KEY\n');
  });

  it('a folder swapped for a symlink while writes run never lets a write land outside the workspace', async () => {
    const ws = makeTempDir('teamd-ws-');
    const outside = makeTempDir('teamd-outside-');
    const ctx = context({ workspace: ws, stateDir: path.join(ws, '.team') });
    const tools = new ToolRegistry();
    const dir = path.join(ws, 'd');
    fs.mkdirSync(dir);
    // Another process flips d between a real folder and a symlink to the outside, as fast as it can.
    const flipper = startFixture('dir-flipper.mjs', [dir, outside]);
    await waitForLine(flipper, /^flipping$/);
    let written = 0;
    // At least 2 000 writes, and on until some landed (the flipper's timing varies with the machine's load).
    for (let i = 0; i < 50_000 && (i < 2_000 || written === 0); i++) {
      const result = await tools.run('write_file', { path: 'd/f.txt', content: `${i}` }, ctx);
      if (!result.isError) written++;
    }
    flipper.kill('SIGKILL');
    expect(written).toBeGreaterThan(0);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('grep with a pattern that backtracks catastrophically is stopped and reported, and the teammate stays responsive', async () => {
    const ctx = context();
    fs.writeFileSync(path.join(ctx.workspace, 'a.txt'), `${'a'.repeat(40)}!\n`);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const result = await new ToolRegistry().run('grep', { pattern: '^(a+)+$' }, ctx);
    clearInterval(ticker);
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('simplify it') });
    expect(ticks).toBeGreaterThan(10);
  });

  it('write, read and edit files; edit needs one exact match', async () => {
    const ctx = context();
    const tools = new ToolRegistry();
    expect(await tools.run('write_file', { path: 'src/a.txt', content: 'one two two' }, ctx)).toMatchObject({
      content: expect.stringContaining('wrote 11 bytes'),
    });
    expect((await tools.run('read_file', { path: 'src/a.txt' }, ctx)).content).toBe('one two two');
    expect(await tools.run('edit_file', { path: 'src/a.txt', old_text: 'two', new_text: '2' }, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining('more than once'),
    });
    expect(await tools.run('edit_file', { path: 'src/a.txt', old_text: 'one', new_text: '1' }, ctx)).toMatchObject({ content: 'edited src/a.txt' });
    expect(fs.readFileSync(path.join(ctx.workspace, 'src/a.txt'), 'utf8')).toBe('1 two two');
    expect(await tools.run('read_file', { path: '../../etc/passwd' }, ctx)).toMatchObject({ isError: true });
  });

  it('bash runs in the workspace, reports the exit code, and is killed on timeout', async () => {
    const ctx = context();
    const tools = new ToolRegistry();
    expect(await tools.run('bash', { command: 'pwd; echo oops >&2; exit 3' }, ctx)).toEqual({
      content: `exit code 3\n${fs.realpathSync(ctx.workspace)}\noops\n`,
      isError: true,
    });
    expect(await tools.run('bash', { command: 'sleep 30', timeout_ms: 200 }, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining('timed out'),
    });
  });

  it('unsandboxed, bash answers at its timeout even when a detached child keeps its output pipe open', async () => {
    const ws = makeTempDir('teamd-ws-');
    const ctx = context({
      workspace: ws,
      shell: createShellLauncher({
        kind: detectSandbox(),
        mode: 'off',
        layout: { workspace: ws, hidden: [] },
        baseEnv: process.env,
        envPolicy: { passNames: [], secretNames: [] },
        marker: { name: 'TEAMD_SPAWNED_BY', value: 'test' },
      }),
    });
    const result = await new ToolRegistry().run('bash', { command: 'setsid sleep 31339 & echo $! > child.pid; sleep 30', timeout_ms: 300 }, ctx);
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('timed out') });
    // The answer came while the detached child still held the pipe: it did not wait for it.
    const child = Number(fs.readFileSync(path.join(ws, 'child.pid'), 'utf8'));
    expect(isAlive(child)).toBe(true);
    process.kill(child, 'SIGKILL');
  });

  it('bash stops when the teammate shuts down', async () => {
    const controller = new AbortController();
    const ctx = context({ signal: controller.signal });
    const running = new ToolRegistry().run('bash', { command: 'sleep 30' }, ctx);
    controller.abort();
    expect(await running).toMatchObject({ isError: true, content: expect.stringContaining('shutting down') });
  });

  it('glob and grep search the workspace, skipping node_modules', async () => {
    const ctx = context();
    fs.mkdirSync(path.join(ctx.workspace, 'src/deep'), { recursive: true });
    fs.mkdirSync(path.join(ctx.workspace, 'node_modules/x'), { recursive: true });
    fs.writeFileSync(path.join(ctx.workspace, 'src/deep/a.ts'), 'export const answer = 42;\n');
    fs.writeFileSync(path.join(ctx.workspace, 'node_modules/x/b.ts'), 'answer\n');
    const tools = new ToolRegistry();
    expect((await tools.run('glob', { pattern: '**/*.ts' }, ctx)).content).toBe('src/deep/a.ts');
    expect((await tools.run('grep', { pattern: 'answer' }, ctx)).content).toBe('src/deep/a.ts:1: export const answer = 42;');
    expect(globToRegExp('src/**/*.ts').test('src/a.ts')).toBe(true);
  });

  it('mutating tools refuse until a required plan is approved', async () => {
    let approved = false;
    const tools = new ToolRegistry(undefined, () => approved);
    const ctx = context();
    expect(await tools.run('write_file', { path: 'a', content: 'x' }, ctx)).toMatchObject({
      isError: true,
      content: expect.stringContaining('plan is not approved'),
    });
    expect(await tools.run('read_file', { path: 'missing' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('no such file') });
    approved = true;
    expect(await tools.run('write_file', { path: 'a', content: 'x' }, ctx)).toMatchObject({ content: 'wrote 1 bytes to a' });
  });

  it('board tools use the claim number: completing with a stale claim is refused', async () => {
    const ctx = context();
    await ctx.board.add({ subject: 'x' });
    const tools = new ToolRegistry();
    expect(await tools.run('claim_task', { id: 1 }, ctx)).toMatchObject({ content: expect.stringContaining('"claim": 1') });
    await ctx.board.release(1);
    await ctx.board.claim(1, 'alice');
    expect(await tools.run('complete_task', { id: 1, result: 'late' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('STALE_CLAIM') });
  });

  it('a large output is kept aside whole: the model gets its head, tail and a reference that read_file pages through', async () => {
    const ctx = context();
    const registry = new ToolRegistry();
    const big = await registry.run('bash', { command: 'seq 1 20000' }, ctx, 'toolu_big1');
    expect(big.content.length).toBeLessThan(10_000);
    expect(big.content).toContain('teamd-output:toolu_big1');
    expect(big.content).toMatch(/^exit code 0\n1\n2\n/);
    expect(big.content).toMatch(/20000\n?$/);
    const page = await registry.run('read_file', { path: 'teamd-output:toolu_big1', offset: 0 }, ctx);
    expect(page.content.startsWith('exit code 0\n1\n2\n3\n')).toBe(true);
    expect(page.content).toContain('\n12345\n');
    expect((await registry.run('read_file', { path: 'teamd-output:../../etc/passwd' }, ctx)).isError).toBe(true);
    expect((await registry.run('read_file', { path: 'teamd-output:toolu_nothing' }, ctx)).isError).toBe(true);
  });
});
