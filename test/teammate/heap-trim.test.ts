import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeapTrim } from '../../src/teammate/heap-trim.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A collector that records its collections in order. */
function recorder(): { full: () => void; young: () => void; calls: string[] } {
  const calls: string[] = [];
  return { calls, full: () => calls.push('full'), young: () => calls.push('young') };
}

describe('HeapTrim', () => {
  it('collects in full a quiet moment after the teammate goes idle from work, then its young generation twice once settled', () => {
    const collector = recorder();
    const trim = new HeapTrim(collector, 500, 3_500);
    trim.working();
    trim.idle();
    trim.idle();
    vi.advanceTimersByTime(499);
    expect(collector.calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(collector.calls).toEqual(['full']);
    vi.advanceTimersByTime(3_499);
    expect(collector.calls).toEqual(['full']);
    vi.advanceTimersByTime(1);
    expect(collector.calls).toEqual(['full', 'young', 'young']);
    // Idle again without work in between (an empty wake-up): nothing to give back.
    trim.idle();
    vi.advanceTimersByTime(10_000);
    expect(collector.calls).toEqual(['full', 'young', 'young']);
  });

  it('work that starts within the quiet moment puts the collection off until the next idle', () => {
    const collector = recorder();
    const trim = new HeapTrim(collector, 500, 3_500);
    trim.working();
    trim.idle();
    vi.advanceTimersByTime(200);
    trim.working();
    vi.advanceTimersByTime(10_000);
    expect(collector.calls).toEqual([]);
    trim.idle();
    vi.advanceTimersByTime(500);
    expect(collector.calls).toEqual(['full']);
  });

  it('work between the full collection and the settling ones puts the settling off until the next idle', () => {
    const collector = recorder();
    const trim = new HeapTrim(collector, 500, 3_500);
    trim.working();
    trim.idle();
    vi.advanceTimersByTime(1_000);
    trim.working();
    vi.advanceTimersByTime(10_000);
    expect(collector.calls).toEqual(['full']);
    trim.idle();
    vi.advanceTimersByTime(4_000);
    expect(collector.calls).toEqual(['full', 'full', 'young', 'young']);
  });

  it('counts start-up as work: the first idle after it collects and settles, the next ones without work do not', () => {
    const collector = recorder();
    const trim = new HeapTrim(collector, 500, 3_500);
    trim.idle();
    vi.advanceTimersByTime(4_000);
    expect(collector.calls).toEqual(['full', 'young', 'young']);
    trim.idle();
    vi.advanceTimersByTime(10_000);
    expect(collector.calls).toEqual(['full', 'young', 'young']);
  });

  it('without V8’s gc it sets no timer at all', () => {
    const without = new HeapTrim(null, 500);
    without.working();
    without.idle();
    expect(vi.getTimerCount()).toBe(0);
    const withGc = new HeapTrim(recorder(), 500);
    withGc.idle();
    expect(vi.getTimerCount()).toBe(1);
  });
});
