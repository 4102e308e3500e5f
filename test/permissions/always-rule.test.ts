import { describe, expect, it } from 'vitest';
import { alwaysRule } from '../../src/permissions/always-rule.js';

describe('alwaysRule: the allow rule an approve --always writes', () => {
  it("one simple command: Claude Code's prefix form, keeping a subcommand of the programs that have them", () => {
    expect(alwaysRule('bash', { command: 'sleep 5' })).toBe('Bash(sleep:*)');
    expect(alwaysRule('bash', { command: 'git   status -s' })).toBe('Bash(git status:*)');
    expect(alwaysRule('bash', { command: 'npm run test:unit' })).toBe('Bash(npm run:*)');
    expect(alwaysRule('bash', { command: 'git -C x log' })).toBe('Bash(git:*)');
  });

  it('a line whose prefix would allow more than was seen keeps the line: compound, assignments, substitutions; --exact always', () => {
    expect(alwaysRule('bash', { command: 'npm test && rm -rf /' })).toBe('Bash(npm test && rm -rf /)');
    expect(alwaysRule('bash', { command: 'PATH=/tmp npm test' })).toBe('Bash(PATH=/tmp npm test)');
    expect(alwaysRule('bash', { command: 'echo $(whoami)' })).toBeNull();
    expect(alwaysRule('bash', { command: 'sleep 5' }, true)).toBe('Bash(sleep 5)');
  });

  it('a file tool: the file; nothing to write a rule from: null', () => {
    expect(alwaysRule('write_file', { path: 'src/a.ts' })).toBe('write_file(src/a.ts)');
    expect(alwaysRule('bash', {})).toBeNull();
    expect(alwaysRule('write_file', { path: '' })).toBeNull();
  });
});
