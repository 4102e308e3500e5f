import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../src/contracts/notifications.js';
import { createLogger } from '../../src/log/logger.js';
import { LEDGER_MAX_BYTES, NoticeLedger } from '../../src/notify/notice-ledger.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const notice = (key: string, text = 'why'): Notice => ({
  key,
  kind: 'task_failed',
  at: '2026-12-08T00:00:00.000Z',
  title: key,
  text,
  teammate: null,
  task: null,
});

describe('the notifications ledger (run/notifications.jsonl)', () => {
  it('knows what was found and which sendings did not end, past a torn last line and a line that is not a record', () => {
    const file = path.join(makeTempDir('teamd-ledger-'), 'notifications.jsonl');
    const first = new NoticeLedger(file, createLogger());
    expect(first.load()).toEqual([]);
    first.found(notice('a'), [0, 1]);
    first.ended('a', 0, { ok: true, attempts: 1 }, '2026-12-08T00:00:01.000Z');
    first.found(notice('b'), [1]);
    fs.appendFileSync(file, 'not json\n{"type":"sent","key":"b"');
    const second = new NoticeLedger(file, createLogger());
    expect(second.load()).toEqual([
      { notice: notice('a'), target: 1 },
      { notice: notice('b'), target: 1 },
    ]);
    expect(second.has('a') && second.has('b') && !second.has('c')).toBe(true);
    // The next line starts on a line of its own, past the torn one.
    second.ended('b', 1, { ok: false, attempts: 6, error: 'the webhook answered 500' }, '2026-12-08T00:00:02.000Z');
    expect(new NoticeLedger(file, createLogger()).load()).toEqual([{ notice: notice('a'), target: 1 }]);
  });

  it('stays under its size, written anew with the newest notices, each still known', () => {
    const file = path.join(makeTempDir('teamd-ledger-'), 'notifications.jsonl');
    const ledger = new NoticeLedger(file, createLogger());
    ledger.load();
    const padding = 'x'.repeat(1_000);
    for (let i = 0; i < 3_000; i++) {
      ledger.found(notice(`n${i}`, padding), [0]);
      ledger.ended(`n${i}`, 0, { ok: true, attempts: 1 }, '2026-12-08T00:00:00.000Z');
    }
    expect(fs.statSync(file).size).toBeLessThanOrEqual(LEDGER_MAX_BYTES);
    const again = new NoticeLedger(file, createLogger());
    expect(again.load()).toEqual([]);
    expect(again.has('n2999')).toBe(true);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['notifications.jsonl']);
  });
});
