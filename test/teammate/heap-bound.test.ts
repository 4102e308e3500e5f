import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { HEAP_EXIT_CODE } from '../../src/supervisor/restart-policy.js';
import { HeapBound } from '../../src/teammate/heap-bound.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const MIB = 1024 * 1024;

/** A heap whose size the test sets, a collection that frees what the test says is garbage, and what the bound told. */
function heap(limitMiB = 100) {
  const state = { live: 10 * MIB, garbage: 0, collections: 0, told: [] as string[] };
  const bound = new HeapBound({
    limitBytes: limitMiB * MIB,
    usedBytes: () => state.live + state.garbage,
    collect: () => {
      state.collections++;
      state.garbage = 0;
    },
    over: (used) => state.told.push(`over ${used / MIB}`),
    overAtOnce: (used) => state.told.push(`at once ${used / MIB}`),
    everyMs: 1_000,
  });
  return { state, bound };
}

describe('HeapBound', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('looks every second while the teammate works, and once as it goes idle; never while it is idle', () => {
    const { state, bound } = heap();
    bound.working();
    bound.working();
    state.live = 150 * MIB;
    vi.advanceTimersByTime(999);
    expect(state.told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(state.told).toEqual(['over 150']);
    // Told once; still looked at, for twice the bound.
    vi.advanceTimersByTime(5_000);
    expect(state.told).toEqual(['over 150']);
    bound.idle();
    state.live = 250 * MIB;
    vi.advanceTimersByTime(60_000);
    expect(state.told).toEqual(['over 150']);
  });

  it('counts only what is live: garbage past the bound is collected, and nothing is told', () => {
    const { state, bound } = heap();
    state.live = 60 * MIB;
    state.garbage = 80 * MIB;
    expect(bound.check()).toBe(false);
    expect(state.collections).toBe(1);
    expect(state.told).toEqual([]);
    // Under the bound, no collection at all.
    state.garbage = 30 * MIB;
    expect(bound.check()).toBe(false);
    expect(state.collections).toBe(1);
  });

  it('past twice the bound, it ends the teammate at once, told or not, and stops looking', () => {
    const { state, bound } = heap();
    bound.working();
    state.live = 120 * MIB;
    vi.advanceTimersByTime(1_000);
    state.live = 201 * MIB;
    vi.advanceTimersByTime(1_000);
    expect(state.told).toEqual(['over 120', 'at once 201']);
    vi.advanceTimersByTime(10_000);
    expect(state.told).toHaveLength(2);

    const fresh = heap();
    fresh.state.live = 300 * MIB;
    fresh.bound.idle();
    expect(fresh.state.told).toEqual(['at once 300']);
  });

  it('once told, it does not collect in full every second while the heap stays under twice the bound', () => {
    const { state, bound } = heap();
    bound.working();
    state.live = 150 * MIB;
    vi.advanceTimersByTime(10_000);
    expect(state.told).toEqual(['over 150']);
    expect(state.collections).toBe(1);
  });
});

/** A saved conversation holding one answered exchange of `mib` MiB of text: the teammate holds it in its heap once it has loaded it. */
function bigSession(dir: string, name: string, mib: number): void {
  const header = { teamdSession: 1, handled: [], usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } };
  const lines = [
    header,
    { role: 'user', content: [{ type: 'text', text: 'x'.repeat(mib * MIB) }] },
    { role: 'assistant', content: [{ type: 'text', text: 'noted' }] },
  ];
  fs.mkdirSync(path.join(dir, 'sessions'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(statePaths(dir).sessionFile(name), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, { mode: 0o600 });
}

/** alice, spawned on a team whose heap bound is 16 MiB, with a saved conversation of `mib` MiB: her state folder. */
async function aliceWithSession(mib: number): Promise<string> {
  const dir = path.join(makeTempDir('teamd-ws-'), '.team');
  fs.mkdirSync(dir, { recursive: true });
  bigSession(dir, 'alice', mib);
  await startDaemon(dir, { settings: { heapMaxBytes: 16 * MIB } });
  expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
  return dir;
}

describe("a teammate over its heap's bound (heapMaxBytes)", () => {
  it('stops, exits 70 and is started again by the daemon like any crash; a bound it passes at every start ends in errored', async () => {
    const dir = await aliceWithSession(10);
    // Each start loads the 10 MiB conversation (17-27 MiB of heap: the session store keeps the
    // last messages' JSON too), goes idle, finds its heap over 16 MiB and exits:
    // restarted five times within seconds of each start, then given up on.
    const alice = await waitFor(() => member(dir, 'alice')?.status === 'errored' && member(dir, 'alice'), 'alice to be given up on', 60_000);
    expect(alice.lastExit).toBe(`exit code ${HEAP_EXIT_CODE}: its heap grew past heapMaxBytes`);
    const log = fs.readFileSync(statePaths(dir).logFile('alice'), 'utf8');
    const over = log.split('\n').filter((line) => line.includes('the heap grew past heapMaxBytes: stopping after this step'));
    expect(over.length).toBeGreaterThanOrEqual(5);
    const first = JSON.parse(over[0]!) as { heapMiB: number; boundMiB: number };
    expect(first.boundMiB).toBe(16);
    expect(first.heapMiB).toBeGreaterThan(16);
    expect(first.heapMiB).toBeLessThanOrEqual(32);
    expect(fs.readFileSync(statePaths(dir).logFile('daemon'), 'utf8')).toContain(`"code":${HEAP_EXIT_CODE}`);
  });

  it('far past it (twice the bound), exits at once with the same code', async () => {
    const dir = await aliceWithSession(64);
    await waitFor(() => member(dir, 'alice')?.lastExit?.startsWith(`exit code ${HEAP_EXIT_CODE}`), 'alice to exit for her heap');
    const log = fs.readFileSync(statePaths(dir).logFile('alice'), 'utf8');
    expect(log).toContain('the heap grew past twice heapMaxBytes: exiting now');
  });
});
