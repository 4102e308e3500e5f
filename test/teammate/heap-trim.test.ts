import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeapTrim } from '../../src/teammate/heap-trim.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('HeapTrim', () => {
  it('collects once, a quiet moment after the teammate goes idle from work', () => {
    const collect = vi.fn();
    const trim = new HeapTrim(collect, 500);
    trim.working();
    trim.idle();
    trim.idle();
    vi.advanceTimersByTime(499);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(1);
    // Idle again without work in between (an empty wake-up): nothing to give back.
    trim.idle();
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('work that starts within the quiet moment puts the collection off until the next idle', () => {
    const collect = vi.fn();
    const trim = new HeapTrim(collect, 500);
    trim.working();
    trim.idle();
    vi.advanceTimersByTime(200);
    trim.working();
    vi.advanceTimersByTime(10_000);
    expect(collect).not.toHaveBeenCalled();
    trim.idle();
    vi.advanceTimersByTime(500);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('counts start-up as work: the first idle after it collects once, the next ones without work do not', () => {
    const collect = vi.fn();
    const trim = new HeapTrim(collect, 500);
    trim.idle();
    vi.advanceTimersByTime(500);
    expect(collect).toHaveBeenCalledTimes(1);
    trim.idle();
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('without V8’s gc it sets no timer at all', () => {
    const without = new HeapTrim(null, 500);
    without.working();
    without.idle();
    expect(vi.getTimerCount()).toBe(0);
    const withGc = new HeapTrim(vi.fn(), 500);
    withGc.idle();
    expect(vi.getTimerCount()).toBe(1);
  });
});
