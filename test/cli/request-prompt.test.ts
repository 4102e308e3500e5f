import { describe, expect, it } from 'vitest';
import { walkChoice } from '../../src/cli/request-prompt.js';

describe('an answer typed at a request in teamd plans --watch', () => {
  it('is one letter or word; only a capital A (or "always") grants a standing rule; r may carry its reason', () => {
    expect(walkChoice('a')).toEqual({ kind: 'approve' });
    expect(walkChoice('  approve ')).toEqual({ kind: 'approve' });
    expect(walkChoice('A')).toEqual({ kind: 'always' });
    expect(walkChoice('always')).toEqual({ kind: 'always' });
    expect(walkChoice('r')).toEqual({ kind: 'reject', reason: null });
    expect(walkChoice('r  not on   Fridays ')).toEqual({ kind: 'reject', reason: 'not on Fridays' });
    expect(walkChoice('s')).toEqual({ kind: 'skip' });
    expect(walkChoice('q')).toEqual({ kind: 'quit' });
    expect(walkChoice('')).toEqual({ kind: 'again' });
    // Anything else is no answer at all, not a guess at one.
    for (const line of ['y', 'yes', 'a please', 'A now', 'ALWAYS', 'R']) expect(walkChoice(line)).toEqual({ kind: 'unknown', text: line });
  });
});
