import { describe, expect, it } from 'vitest';
import { forTerminal } from '../../src/cli/terminal-text.js';

describe('forTerminal', () => {
  it('keeps text, newlines and tabs as they are', () => {
    const text = 'task 3: fix the parser\n\tdone — naïve café 👍🏽 漢字';
    expect(forTerminal(text)).toBe(text);
  });

  it('writes out every other control character (C0, DEL, C1) as \\u00NN, which JSON reads back as the same text', () => {
    const text = 'a\x00b\x07c\x1b[31md\re\x7ff\x85g\x9b';
    expect(forTerminal(text)).toBe('a\\u0000b\\u0007c\\u001b[31md\\u000de\\u007ff\\u0085g\\u009b');
    expect(JSON.parse(forTerminal(JSON.stringify({ text })))).toEqual({ text });
  });

  it('gives the same answer called again (no regex state carried between calls)', () => {
    expect(forTerminal('\x1bx')).toBe('\\u001bx');
    expect(forTerminal('\x1bx')).toBe('\\u001bx');
    expect(forTerminal('plain')).toBe('plain');
  });
});
