import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InboxConsumer } from '../../../src/store/files/consumer.js';
import { Mailbox } from '../../../src/store/files/mailbox.js';
import { createLogger } from '../../../src/log/logger.js';
import { writeRoster } from '../../helpers/team.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

function setup() {
  const paths = writeRoster(makeTempDir(), ['sink']);
  const logger = createLogger();
  const mailbox = new Mailbox({ paths, logger });
  const send = (content: string) => mailbox.send({ from: 'alice', to: 'sink', content });
  return { paths, logger, send };
}

describe('InboxConsumer', () => {
  it('returns the same messages until they are committed, then only new ones', () => {
    const { paths, logger, send } = setup();
    send('one');
    send('two');
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    const first = consumer.read();
    expect(first.messages.map((m) => m.content)).toEqual(['one', 'two']);
    expect(consumer.read().messages.map((m) => m.content)).toEqual(['one', 'two']);
    consumer.commit(first);
    send('three');
    expect(consumer.read().messages.map((m) => m.content)).toEqual(['three']);
  });

  it('a cursor pointing inside a message re-reads from the start instead of skipping it; handled ids are dropped', () => {
    const { paths, logger, send } = setup();
    send('one');
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    const first = consumer.read();
    consumer.commit(first);
    send('two, which the damaged cursor cuts through');
    const cursor = JSON.parse(fs.readFileSync(paths.cursorFile('sink'), 'utf8'));
    fs.writeFileSync(paths.cursorFile('sink'), JSON.stringify({ ...cursor, offset: cursor.offset + 10 }));
    const handled = new Set(first.messages.map((m) => m.id));
    const again = new InboxConsumer({ paths, name: 'sink', logger, isHandled: (id) => handled.has(id) });
    expect(again.read().messages.map((m) => m.content)).toEqual(['two, which the damaged cursor cuts through']);
  });

  it('persists the cursor, so a new consumer continues where the last one committed', () => {
    const { paths, logger, send } = setup();
    send('one');
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    consumer.commit(consumer.read());
    send('two');
    const cursor = JSON.parse(fs.readFileSync(paths.cursorFile('sink'), 'utf8'));
    expect(cursor).toMatchObject({ offset: expect.any(Number), lastId: expect.any(String) });
    expect(new InboxConsumer({ paths, name: 'sink', logger }).read().messages.map((m) => m.content)).toEqual(['two']);
  });

  it('drops ids its durable store already handled (killed between handling and commit)', () => {
    const { paths, logger, send } = setup();
    const one = send('one');
    send('two');
    const restarted = new InboxConsumer({ paths, name: 'sink', logger, isHandled: (id) => id === one.id });
    expect(restarted.read().messages.map((m) => m.content)).toEqual(['two']);
  });

  it('drops a duplicate id appended twice', () => {
    const { paths, logger, send } = setup();
    const one = send('one');
    fs.appendFileSync(paths.inboxFile('sink'), `${JSON.stringify(one)}\n`);
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    expect(consumer.read().messages).toHaveLength(1);
  });

  it('skips a malformed line once and for all, and never delivers an unfinished last line', () => {
    const { paths, logger, send } = setup();
    send('one');
    fs.appendFileSync(paths.inboxFile('sink'), 'garbage\n{"id":"half');
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    const batch = consumer.read();
    expect(batch.messages.map((m) => m.content)).toEqual(['one']);
    consumer.commit(batch);
    expect(consumer.read().messages).toEqual([]);
    send('two');
    expect(consumer.read().messages.map((m) => m.content)).toEqual(['two']);
  });

  it('a damaged cursor or a shortened inbox re-reads from the start, dropping handled ids', () => {
    const { paths, logger, send } = setup();
    const one = send('one');
    const consumer = new InboxConsumer({ paths, name: 'sink', logger });
    consumer.commit(consumer.read());
    fs.writeFileSync(paths.cursorFile('sink'), '{"offs');
    const handled = (id: string) => id === one.id;
    send('two');
    expect(new InboxConsumer({ paths, name: 'sink', logger, isHandled: handled }).read().messages.map((m) => m.content)).toEqual(['two']);
    fs.writeFileSync(paths.cursorFile('sink'), JSON.stringify({ offset: 10_000_000, lastId: null }));
    expect(new InboxConsumer({ paths, name: 'sink', logger, isHandled: handled }).read().messages.map((m) => m.content)).toEqual(['two']);
  });
});
