import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { readInboxFrom } from '../../../src/store/files/inbox-file.js';
import { collectOutput, startFixture, waitForLine } from '../../helpers/processes.js';
import { writeRoster } from '../../helpers/team.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const WRITERS = 8;
const PER_WRITER = 1000;

function handledLines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => /^[0-9a-f-]{36} \S+$/.test(line));
}

/** Polls a condition until it holds, with a deadline. */
async function until(condition: () => boolean, what: string, deadlineMs = 120_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(5);
  }
}

describe('inbox delivery across processes', () => {
  it(`${WRITERS} writers x ${PER_WRITER} messages, consumer killed -9 at random points: each id handled once, in sender order`, async () => {
    const root = makeTempDir();
    const paths = writeRoster(root, ['sink']);
    const handledFile = path.join(root, 'handled.txt');
    const total = WRITERS * PER_WRITER;
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      collectOutput(startFixture('inbox-writer.mjs', [root, `writer-${i}`, 'sink', String(PER_WRITER)])),
    );

    let kills = 0;
    let finished = false;
    while (!finished) {
      const consumer = startFixture('inbox-consumer.mjs', [root, 'sink', handledFile, String(total)]);
      const output = collectOutput(consumer);
      await waitForLine(consumer, /^ready$/);
      const before = handledLines(handledFile).length;
      const target = before + 1 + Math.floor(Math.random() * 1500);
      if (kills < 6 && target < total) {
        // Kill once it has handled a random number more: between a handle and its commit, or mid-read.
        await until(() => handledLines(handledFile).length >= target || consumer.exitCode !== null, 'consumer progress');
        consumer.kill('SIGKILL');
        await output;
        kills++;
      } else {
        const result = await output;
        expect(result.code, result.stderr).toBe(0);
        finished = true;
      }
    }
    for (const writer of await Promise.all(writers)) expect(writer.code, writer.stderr).toBe(0);

    const lines = handledLines(handledFile);
    const ids = lines.map((line) => line.split(' ')[0]);
    expect(new Set(ids).size).toBe(total);
    expect(ids).toHaveLength(total);
    const lastSeq = new Map<string, number>();
    for (const line of lines) {
      const [writer, seq] = line.split(' ')[1]!.split(':') as [string, string];
      expect(Number(seq)).toBe((lastSeq.get(writer) ?? -1) + 1);
      lastSeq.set(writer, Number(seq));
    }
    expect(kills).toBeGreaterThan(0);
    const read = readInboxFrom(paths.inboxFile('sink'), 0);
    expect(read.skipped).toEqual([]);
    expect(read.messages).toHaveLength(total);
  });

  it('concurrent messages larger than 64 KiB never interleave', async () => {
    const root = makeTempDir();
    const paths = writeRoster(root, ['sink']);
    const size = 200 * 1024;
    const writers = Array.from({ length: 6 }, (_, i) => collectOutput(startFixture('inbox-writer.mjs', [root, `big-${i}`, 'sink', '20', String(size)])));
    for (const writer of await Promise.all(writers)) expect(writer.code, writer.stderr).toBe(0);
    const read = readInboxFrom(paths.inboxFile('sink'), 0);
    expect(read.skipped).toEqual([]);
    expect(read.messages).toHaveLength(120);
    for (const { message } of read.messages) {
      expect(message.content).toHaveLength(size);
      expect(message.content).toMatch(/^big-\d:\d+\.+$/);
    }
  });
});
