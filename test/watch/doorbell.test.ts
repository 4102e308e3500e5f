import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InboxConsumer } from '../../src/store/files/consumer.js';
import { createLogger } from '../../src/log/logger.js';
import { Doorbell } from '../../src/watch/doorbell.js';
import { collectOutput, startFixture } from '../helpers/processes.js';
import { writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const logger = createLogger();
const HOUR = 3_600_000;

describe('Doorbell', () => {
  it('wakes a waiter when another process appends to a watched inbox', async () => {
    const root = makeTempDir();
    const paths = writeRoster(root, ['sink']);
    const bell = await Doorbell.open({ dirs: [paths.inboxDir], rescanMs: HOUR, logger });
    try {
      const woken = bell.wait();
      await collectOutput(startFixture('inbox-writer.mjs', [root, 'alice', 'sink', '1']));
      expect(await woken).toBe('change');
    } finally {
      await bell.close();
    }
  });

  it('remembers a ring that came before wait(), and resolves waits on abort and close', async () => {
    const root = makeTempDir();
    const bell = await Doorbell.open({ dirs: [path.join(root, 'inbox')], rescanMs: HOUR, logger });
    bell.ring();
    expect(await bell.wait()).toBe('change');
    const controller = new AbortController();
    const aborted = bell.wait(controller.signal);
    controller.abort();
    expect(await aborted).toBe('aborted');
    const pending = bell.wait();
    await bell.close();
    expect(await pending).toBe('aborted');
  });

  it('ignores temp and lock files, and changes in other folders', async () => {
    const root = makeTempDir();
    const paths = writeRoster(root, ['sink']);
    const bell = await Doorbell.open({ dirs: [paths.tasksDir], rescanMs: HOUR, logger });
    try {
      const { FileLocker } = await import('../../src/fs/file-lock.js');
      const { Board } = await import('../../src/store/files/board.js');
      const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
      const woken = bell.wait();
      await board.add({ subject: 'wake up' });
      expect(await woken).toBe('change');
    } finally {
      await bell.close();
    }
  });

  it('a reader that waits on the bell between reads strands no message of a fast burst (no safety rescan)', async () => {
    const root = makeTempDir();
    const paths = writeRoster(root, ['sink']);
    const total = 3000;
    const bell = await Doorbell.open({ dirs: [paths.inboxDir], rescanMs: HOUR, logger });
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    const writers = [0, 1, 2].map((i) => collectOutput(startFixture('inbox-writer.mjs', [root, `burst-${i}`, 'sink', String(total / 3)])));
    let received = 0;
    try {
      while (received < total) {
        const batch = consumer.read();
        received += batch.messages.length;
        consumer.commit(batch);
        if (received < total) expect(await bell.wait()).toBe('change');
      }
    } finally {
      await bell.close();
    }
    await Promise.all(writers);
    expect(received).toBe(total);
  });
});
