import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileLocker } from '../../src/fs/file-lock.js';
import { createLogger } from '../../src/log/logger.js';
import { startFixture, waitForLine } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function target(): string {
  const dir = makeTempDir();
  const file = path.join(dir, 'task_1.json');
  fs.writeFileSync(file, '{}');
  return file;
}

describe('FileLocker', () => {
  it('serialises critical sections of concurrent holders', async () => {
    const file = target();
    const locker = new FileLocker({ logger: createLogger() });
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        locker.withLock(file, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((resolve) => setImmediate(resolve));
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('does not take a lock that a live process holds', async () => {
    const file = target();
    const holder = startFixture('lock-holder.mjs', [file]);
    await waitForLine(holder, /^locked$/);
    const locker = new FileLocker({ logger: createLogger() });
    expect(await locker.tryAcquire(file)).toBeNull();
  });

  it('takes over the lock of a holder killed -9 once it goes stale', async () => {
    const file = target();
    const holder = startFixture('lock-holder.mjs', [file]);
    await waitForLine(holder, /^locked$/);
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    const locker = new FileLocker({ logger: createLogger() });
    expect(await locker.tryAcquire(file)).toBeNull();
    const handle = await locker.acquire(file);
    expect(handle.compromised).toBe(false);
    await handle.release();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("does not delete a newer owner's lock after it stalled past the stale time", async () => {
    const file = target();
    let now = 1_000_000;
    const locker = new FileLocker({ logger: createLogger(), now: () => now });
    const handle = await locker.acquire(file);
    // Another process decided the lock was stale and took it: a new lock folder of its own.
    fs.rmdirSync(`${file}.lock`);
    fs.mkdirSync(`${file}.lock`);
    now += locker.timings.staleMs + 1;
    await handle.release();
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
  });

  it('gives up with LOCK_TIMEOUT naming the lock when a live holder keeps it', async () => {
    const file = target();
    const holder = startFixture('lock-holder.mjs', [file]);
    await waitForLine(holder, /^locked$/);
    const locker = new FileLocker({ logger: createLogger(), timings: { acquireTimeoutMs: 200 } });
    await expect(locker.acquire(file)).rejects.toMatchObject({ code: 'LOCK_TIMEOUT', message: expect.stringContaining(`${file}.lock`) });
  });
});
