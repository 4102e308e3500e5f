import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { resolveInWorkspace } from '../../src/tools/workspace.js';
import { globToRegExp } from '../../src/tools/search-tools.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { createShellLauncher } from '../../src/sandbox/shell-launcher.js';
import { openBoard } from '../helpers/board.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  const workspace = makeTempDir('teamd-ws-');
  const { board } = openBoard(path.join(workspace, '.team'));
  return {
    name: 'alice',
    workspace,
    stateDir: path.join(workspace, '.team'),
    shell: createShellLauncher({
      kind: detectSandbox(),
      mode: 'required',
      layout: { workspace, hidden: [path.join(workspace, '.team')] },
      baseEnv: process.env,
      secretNames: [],
      marker: { name: 'TEAMD_SPAWNED_BY', value: 'test' },
    }),
    board,
    mailbox: {} as ToolContext['mailbox'],
    signal: new AbortController().signal,
    claims: new Map(),
    control: { idle: () => undefined, submitPlan: () => 'req-1' },
    ...overrides,
  };
}

describe('tools', () => {
  it('confine paths to the workspace: no ../, no absolute paths outside, no symlink escapes, no .team', () => {
    const ws = makeTempDir('teamd-ws-');
    fs.mkdirSync(path.join(ws, '.team'));
    fs.symlinkSync('/etc', path.join(ws, 'etc-link'));
    expect(resolveInWorkspace(ws, 'src/a.ts')).toEqual({ path: path.join(fs.realpathSync(ws), 'src/a.ts') });
    expect(resolveInWorkspace(ws, '../outside')).toMatchObject({ error: expect.stringContaining('outside the workspace') });
    expect(resolveInWorkspace(ws, '/etc/passwd')).toMatchObject({ error: expect.stringContaining('outside the workspace') });
    expect(resolveInWorkspace(ws, 'etc-link/passwd')).toMatchObject({ error: expect.stringContaining('symlink') });
    expect(resolveInWorkspace(ws, '.team/tasks/task_1.json')).toMatchObject({ error: expect.stringContaining('.team') });
  });

  it('write, read and edit files; edit needs one exact match', async () => {
    const ctx = context();
    const tools = new ToolRegistry();
    expect(await tools.run('write_file', { path: 'src/a.txt', content: 'one two two' }, ctx)).toMatchObject({ content: expect.stringContaining('wrote 11 bytes') });
    expect((await tools.run('read_file', { path: 'src/a.txt' }, ctx)).content).toBe('one two two');
    expect(await tools.run('edit_file', { path: 'src/a.txt', old_text: 'two', new_text: '2' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('more than once') });
    expect(await tools.run('edit_file', { path: 'src/a.txt', old_text: 'one', new_text: '1' }, ctx)).toMatchObject({ content: 'edited src/a.txt' });
    expect(fs.readFileSync(path.join(ctx.workspace, 'src/a.txt'), 'utf8')).toBe('1 two two');
    expect(await tools.run('read_file', { path: '../../etc/passwd' }, ctx)).toMatchObject({ isError: true });
  });

  it('bash runs in the workspace, reports the exit code, and is killed on timeout', async () => {
    const ctx = context();
    const tools = new ToolRegistry();
    expect(await tools.run('bash', { command: 'pwd; echo oops >&2; exit 3' }, ctx)).toEqual({ content: `exit code 3\n${fs.realpathSync(ctx.workspace)}\noops\n`, isError: true });
    expect(await tools.run('bash', { command: 'sleep 30', timeout_ms: 200 }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('timed out') });
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
    expect(await tools.run('write_file', { path: 'a', content: 'x' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('plan is not approved') });
    expect(await tools.run('read_file', { path: 'missing' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('cannot read') });
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
});
