import { describe, expect, it } from 'vitest';
import { repaint } from '../../src/cli/watch/repaint.js';

describe('repaint: what the watch writes between two frames', () => {
  it('the whole frame after a clear when the screen is unknown; then the changed lines alone, and the lines gone cleared', () => {
    expect(repaint(null, ['a', 'b'])).toBe('\x1b[H\x1b[2Ja\nb');
    expect(repaint(['a', 'b', 'c'], ['a', 'B', 'c'])).toBe('\x1b[2;1HB\x1b[K');
    expect(repaint(['a', 'b', 'c'], ['a'])).toBe('\x1b[2;1H\x1b[K\x1b[3;1H\x1b[K');
    expect(repaint(['a'], ['a', 'new'])).toBe('\x1b[2;1Hnew\x1b[K');
    expect(repaint(['a', 'b'], ['a', 'b'])).toBe('');
  });
});
