import { describe, expect, it } from 'vitest';
import { isoTime, isoTimeOrNull } from '../../src/platform/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, for times around now, the epoch and the ends of the range', () => {
    const times = [
      0,
      -1,
      1,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 0, 1),
      Date.UTC(0, 0, 1) - 1,
      8.64e15,
      -8.64e15,
      Date.now(),
    ];
    let seed = 12345;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      times.push((seed / 2 ** 31) * 2 * 8.64e15 - 8.64e15);
    }
    for (const at of times) {
      expect(isoTime(at)).toBe(new Date(at).toISOString());
      expect(isoTime(new Date(at))).toBe(new Date(at).toISOString());
    }
  });

  it('throws as toISOString does on an invalid time', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(new Date('not a date'))).toThrow('Invalid time value');
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it('isoTimeOrNull passes a missing time on', () => {
    expect(isoTimeOrNull(null)).toBeNull();
    expect(isoTimeOrNull(undefined)).toBeNull();
    expect(isoTimeOrNull(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
  });
});
