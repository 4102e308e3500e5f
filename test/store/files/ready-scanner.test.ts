import { describe, expect, it } from 'vitest';
import { SummaryCache, type SummarySource } from '../../../src/store/files/summary-cache.js';
import { TaskStore, type TaskSummary } from '../../../src/store/files/task-store.js';
import { newTask } from '../../../src/contracts/task.js';
import { statePaths } from '../../../src/paths.js';
import { writeFileAtomicSync } from '../../../src/fs/atomic-write.js';
import { openBoard } from '../../helpers/board.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('claim-next in a long-running process (cached scans)', () => {
  it('finds a task another process released after this one cached it as taken', async () => {
    const root = makeTempDir();
    const worker = openBoard(root).board;
    const lead = openBoard(root).board;
    await lead.add({ subject: 'a' });
    await lead.add({ subject: 'b' });
    expect((await worker.claimNext('alice'))?.id).toBe(1);
    expect((await worker.claimNext('alice'))?.id).toBe(2);
    await lead.release(1);
    expect((await worker.claimNext('alice'))?.id).toBe(1);
    expect(await worker.claimNext('alice')).toBeNull();
  });

  it('finds a task another process added after this one last listed the board', async () => {
    const root = makeTempDir();
    const worker = openBoard(root).board;
    const lead = openBoard(root).board;
    await lead.add({ subject: 'a' });
    expect((await worker.claimNext('alice'))?.id).toBe(1);
    expect(await worker.claimNext('alice')).toBeNull();
    await lead.add({ subject: 'b' });
    expect((await worker.claimNext('alice'))?.id).toBe(2);
  });

  it('sees a dependent become ready when another process completes its blocker', async () => {
    const root = makeTempDir();
    const worker = openBoard(root).board;
    const lead = openBoard(root).board;
    await lead.add({ subject: 'a' });
    await lead.add({ subject: 'b', blockedBy: [1] });
    await lead.claim(1, 'bob');
    expect(await worker.claimNext('alice')).toBeNull();
    await lead.complete(1, { owner: 'bob' });
    expect((await worker.claimNext('alice'))?.id).toBe(2);
  });
});

/** A whole valid task file with the given summary fields (the scanner validates the full schema). */
function taskJson(summary: TaskSummary): string {
  return JSON.stringify({ ...newTask(1, { subject: 'x', description: '', blockedBy: [] }, new Date().toISOString()), ...summary });
}

describe('SummaryCache', () => {
  const pending: TaskSummary = { status: 'pending', owner: null, blockedBy: [] };
  const taken: TaskSummary = { status: 'in_progress', owner: 'bob', blockedBy: [] };

  function setup(): { file: string; reads: () => number; source: SummarySource } {
    const paths = statePaths(makeTempDir());
    const store = new TaskStore(paths);
    store.ensureDir();
    const file = paths.taskFile(1);
    writeFileAtomicSync(file, taskJson(pending));
    let count = 0;
    return {
      file,
      reads: () => count,
      source: {
        fileOf: () => file,
        peekVersion: (id) => {
          count++;
          return store.peekVersion(id);
        },
      },
    };
  }

  it('re-reads a pending task only when its file was replaced', () => {
    const { file, reads, source } = setup();
    let now = Date.now() + 10_000; // long after the write: the version is settled
    const cache = new SummaryCache(source, {}, () => now);
    expect(cache.get(1)).toEqual(pending);
    expect(cache.get(1)).toEqual(pending);
    expect(reads()).toBe(1);
    writeFileAtomicSync(file, taskJson(taken));
    now += 10_000;
    expect(cache.get(1, true)).toEqual(taken);
    expect(reads()).toBe(2);
  });

  it('presumes a replaced pending task taken without reading it, until the trust window ends', () => {
    const { file, reads, source } = setup();
    let now = Date.now() + 10_000;
    const cache = new SummaryCache(source, { trustMs: 1_000 }, () => now);
    expect(cache.get(1)).toEqual(pending);
    // Replaced by another pending version (an edit): passed over for now, found once trust ends.
    writeFileAtomicSync(file, taskJson({ ...pending, blockedBy: [] }));
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(1)).toBeUndefined();
    expect(reads()).toBe(1);
    now += 1_001;
    expect(cache.get(1)).toEqual(pending);
    expect(reads()).toBe(2);
  });

  it('a verifying get reads a task presumed taken', () => {
    const { file, reads, source } = setup();
    const cache = new SummaryCache(source, {}, () => Date.now() + 10_000);
    cache.get(1);
    writeFileAtomicSync(file, taskJson(taken));
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(1, true)).toEqual(taken);
    expect(reads()).toBe(2);
  });

  it('trusts a taken task for trustMs, then checks it again', () => {
    const { file, reads, source } = setup();
    writeFileAtomicSync(file, taskJson(taken));
    let now = Date.now() + 10_000;
    const cache = new SummaryCache(source, { trustMs: 1_000 }, () => now);
    cache.get(1);
    writeFileAtomicSync(file, taskJson(pending));
    expect(cache.get(1)).toEqual(taken);
    now += 1_001;
    expect(cache.get(1)).toEqual(pending);
    expect(reads()).toBe(2);
  });

  it('never trusts the identity of a version read right after it was written', () => {
    const { reads, source } = setup();
    const cache = new SummaryCache(source, { settledMs: 200 }, () => Date.now());
    cache.get(1);
    cache.get(1);
    expect(reads()).toBe(2);
  });

  it('a verified get looks at the file even within the trust window', () => {
    const { file, reads, source } = setup();
    writeFileAtomicSync(file, taskJson(taken));
    const cache = new SummaryCache(source, { trustMs: 60_000 }, () => Date.now() + 10_000);
    expect(cache.get(1)).toEqual(taken);
    writeFileAtomicSync(file, taskJson(pending));
    expect(cache.get(1)).toEqual(taken);
    expect(cache.get(1, true)).toEqual(pending);
    expect(reads()).toBe(2);
  });

  it('a verified get does not re-read a settled version it already has', () => {
    const { reads, source } = setup();
    const cache = new SummaryCache(source, {}, () => Date.now() + 10_000);
    cache.get(1);
    expect(cache.get(1, true)).toEqual(pending);
    expect(reads()).toBe(1);
  });

  it('within a scan pass a verifying get takes what the pass already checked on disk; the next pass looks again', () => {
    const { file, reads, source } = setup();
    const cache = new SummaryCache(source, {}, () => Date.now() + 10_000);
    cache.beginPass();
    expect(cache.get(1)).toEqual(pending);
    writeFileAtomicSync(file, taskJson(taken));
    expect(cache.get(1, true)).toEqual(pending);
    expect(reads()).toBe(1);
    cache.beginPass();
    expect(cache.get(1, true)).toEqual(taken);
    expect(reads()).toBe(2);
  });

  it('a task written as presumed or remembered is still looked at by a verifying get in the same pass', () => {
    const { file, reads, source } = setup();
    const cache = new SummaryCache(source, {}, () => Date.now() + 10_000);
    cache.beginPass();
    cache.remember(1, taken);
    writeFileAtomicSync(file, taskJson(pending));
    expect(cache.get(1, true)).toEqual(pending);
    expect(reads()).toBe(1);
  });
});
