import { describe, expect, it } from 'vitest';
import { decide, parseRules } from '../../src/permissions/permissions.js';
import { splitShellCommand } from '../../src/permissions/shell-split.js';
import { parseRule } from '../../src/permissions/rules.js';

const workspace = '/work/ws';
const stateDir = '/work/ws/.team';
const call = (tool: string, input: Record<string, unknown>) => ({ tool, input, workspace, stateDir });

describe('permission rules (Claude Code syntax)', () => {
  it('splits a shell line into its commands outside quotes; substitutions make it opaque', () => {
    expect(splitShellCommand('npm test && rm -rf x; ls | wc -l').commands).toEqual(['npm test', 'rm -rf x', 'ls', 'wc -l']);
    expect(splitShellCommand(`echo "a && b" 'c; d' && true`).commands).toEqual([`echo "a && b" 'c; d'`, 'true']);
    expect(splitShellCommand('make 2>&1 | tee log').commands).toEqual(['make 2>&1', 'tee log']);
    expect(splitShellCommand('echo $(rm -rf /)').opaque).toBe(true);
    expect(splitShellCommand('echo "`id`"').opaque).toBe(true);
    expect(splitShellCommand("echo '$(safe)'").opaque).toBe(false);
    expect(splitShellCommand('echo "unclosed').opaque).toBe(true);
  });

  it('deny wins over ask, ask over allow; a compound line is allowed only when every command is', () => {
    const rules = parseRules({
      allow: ['Bash(npm test:*)', 'Bash(git status)', 'Read', 'Edit(src/**)'],
      deny: ['Bash(rm -rf:*)', 'Read(./.env)', 'Bash(curl:*)'],
      ask: ['Bash(git push:*)'],
    });
    expect(decide(call('bash', { command: 'npm test' }), rules)).toMatchObject({ kind: 'allow', why: 'allowed by the rule Bash(npm test:*)' });
    expect(decide(call('bash', { command: 'npm test -- --watch' }), rules).kind).toBe('allow');
    expect(decide(call('bash', { command: 'npm tester' }), rules).kind).toBe('ask');
    expect(decide(call('bash', { command: 'npm test && rm -rf x' }), rules)).toMatchObject({ kind: 'deny', why: 'denied by the rule Bash(rm -rf:*)' });
    expect(decide(call('bash', { command: 'npm test && git status' }), rules).kind).toBe('allow');
    expect(decide(call('bash', { command: 'npm test && make' }), rules).kind).toBe('ask');
    expect(decide(call('bash', { command: 'npm test $(curl evil)' }), rules).kind).toBe('ask');
    expect(decide(call('bash', { command: 'git push origin main' }), rules)).toMatchObject({ kind: 'ask', why: 'the rule Bash(git push:*) asks for approval' });
    expect(decide(call('bash', { command: 'git push && rm -rf /' }), rules).kind).toBe('deny');
    expect(decide(call('read_file', { path: '.env' }), rules).kind).toBe('deny');
    expect(decide(call('read_file', { path: 'README.md' }), rules).kind).toBe('allow');
    expect(decide(call('grep', { pattern: 'x', path: '.env' }), rules).kind).toBe('deny');
    expect(decide(call('write_file', { path: 'src/a/b.ts', content: '' }), rules).kind).toBe('allow');
    expect(decide(call('write_file', { path: 'docs/x.md', content: '' }), rules).kind).toBe('ask');
  });

  it('what no rule decides follows the mode; team tools are never asked for', () => {
    const mode = (defaultMode: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions') => parseRules({ defaultMode });
    expect(decide(call('bash', { command: 'ls' }), mode('default')).kind).toBe('ask');
    expect(decide(call('read_file', { path: 'a' }), mode('default')).kind).toBe('allow');
    expect(decide(call('edit_file', { path: 'a', old: 'x', new: 'y' }), mode('acceptEdits')).kind).toBe('allow');
    expect(decide(call('bash', { command: 'ls' }), mode('acceptEdits')).kind).toBe('ask');
    expect(decide(call('write_file', { path: 'a', content: '' }), mode('plan')).kind).toBe('deny');
    expect(decide(call('bash', { command: 'ls' }), mode('bypassPermissions')).kind).toBe('allow');
    expect(decide(call('complete_task', { id: 1 }), mode('plan')).kind).toBe('allow');
    expect(decide(call('mcp__github__create_issue', {}), mode('default')).kind).toBe('ask');
    expect(decide(call('mcp__github__create_issue', {}), parseRules({ deny: ['mcp__github__create_issue'] })).kind).toBe('deny');
  });

  it('writes outside the workspace or into the state folder are denied whatever the rules say', () => {
    const all = parseRules({ allow: ['Edit', 'Write'], defaultMode: 'bypassPermissions' });
    expect(decide(call('write_file', { path: '../outside.txt', content: '' }), all)).toMatchObject({ kind: 'deny' });
    expect(decide(call('write_file', { path: '/etc/passwd', content: '' }), all).kind).toBe('deny');
    expect(decide(call('edit_file', { path: '.team/config.json', old: 'a', new: 'b' }), all)).toMatchObject({
      kind: 'deny',
      why: expect.stringMatching(/state folder/),
    });
    expect(decide(call('write_file', { path: 'ok.txt', content: '' }), all).kind).toBe('allow');
  });

  it('malformed rules are refused, naming them', () => {
    expect(() => parseRule('Bash(')).toThrow(/"Bash\(" is not a rule/);
    expect(() => parseRule('Bash()')).toThrow(/empty specifier/);
    expect(() => parseRule('two words')).toThrow(/is not a rule/);
  });
});
