import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import type { ChatMessage } from '../../src/contracts/model.js';
import { emptySession, SessionStore, type Session } from '../../src/teammate/session-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const logger = createLogger();

function user(text: string): ChatMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function assistant(text: string): ChatMessage {
  return { role: 'assistant', content: [{ type: 'text', text }] };
}

function fileOf(): string {
  return path.join(makeTempDir(), 'sessions', 'alice.jsonl');
}

function reload(file: string): Session {
  return new SessionStore(file, logger).load();
}

describe('SessionStore', () => {
  it('a durable save (before an inbox cursor moves) is synced to disk before it returns; a plain one is not', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    session.messages.push(user('task 1'));
    store.save(session);
    const synced = vi.spyOn(fs, 'fdatasyncSync');
    try {
      session.messages.push(assistant('step'));
      store.save(session);
      expect(synced).not.toHaveBeenCalled();
      session.messages.push(user('a message'));
      session.handled.push('m1');
      store.save(session, { durable: true });
      expect(synced).toHaveBeenCalledTimes(1);
    } finally {
      synced.mockRestore();
    }
    expect(reload(file)).toMatchObject({ handled: ['m1'], messages: session.messages });
  });

  it('a save the disk refused (or cut short) is not counted as saved: the next one writes the whole session', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    session.messages.push(user('task 1'));
    store.save(session);
    const realWrite = fs.writeSync.bind(fs) as (fd: number, data: Buffer, offset?: number, length?: number) => number;
    const full = vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: Buffer) => {
      // Part of the records, then no room: a torn last line.
      realWrite(fd, data, 0, Math.floor(data.length / 2));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }) as unknown as typeof fs.writeSync);
    try {
      session.messages.push(assistant('step 1'), user('result 1'));
      expect(() => store.save(session)).toThrow(/ENOSPC/);
    } finally {
      full.mockRestore();
    }
    session.messages.push(assistant('step 2'));
    store.save(session);
    expect(reload(file).messages).toEqual(session.messages);
  });

  it('appends each step instead of rewriting the file, and loads back the same session', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    session.messages.push(user('task 1'));
    store.save(session);
    const inode = fs.statSync(file).ino;
    for (let i = 0; i < 50; i++) {
      session.messages.push(assistant(`step ${i}`), user(`result ${i}`));
      session.handled.push(`m${i}`);
      session.usage.inputTokens += 10;
      store.save(session);
    }
    // Same file all along (a rewrite would rename a new one in), growing by what each step added.
    expect(fs.statSync(file).ino).toBe(inode);
    const back = reload(file);
    expect(back.messages).toEqual(session.messages);
    expect(back.handled).toEqual(session.handled);
    expect(back.usage.inputTokens).toBe(500);
  });

  it('a change in place to the last messages is saved as a record; nothing else is written again', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    session.messages.push(user('task'), assistant('thinking'));
    store.save(session);
    const before = fs.statSync(file).size;
    (session.messages[1]!.content[0] as { text: string }).text = 'thinking, then more';
    store.save(session);
    const added = fs.readFileSync(file, 'utf8').slice(before);
    expect(added).toContain('"set":1');
    expect(added).not.toContain('"task"');
    expect(reload(file).messages).toEqual(session.messages);
    // Nothing changed: nothing written.
    const size = fs.statSync(file).size;
    store.save(session);
    expect(fs.statSync(file).size).toBe(size);
  });

  it('rewrite replaces the file whole (after compaction) and it loads as the shorter conversation', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    for (let i = 0; i < 20; i++) session.messages.push(user(`u${i}`), assistant(`a${i}`));
    store.save(session);
    const inode = fs.statSync(file).ino;
    session.messages.splice(0, session.messages.length, user('summary of everything'));
    store.rewrite(session);
    expect(fs.statSync(file).ino).not.toBe(inode);
    expect(reload(file).messages).toEqual([user('summary of everything')]);
    // A conversation that shrank without rewrite() being called is rewritten by save() too.
    session.messages.push(assistant('next'));
    store.save(session);
    session.messages.splice(0, 2, user('shorter'));
    store.save(session);
    expect(reload(file).messages).toEqual([user('shorter')]);
  });

  it('a record torn by a kill mid-append is dropped on load, and the next save leaves a file that loads whole', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    session.messages.push(user('task'), assistant('done part one'));
    store.save(session);
    fs.appendFileSync(file, '{"set":2,"message":{"role":"user","cont');
    const again = new SessionStore(file, logger);
    const loaded = again.load();
    expect(loaded.messages).toEqual(session.messages);
    loaded.messages.push(user('after the restart'));
    again.save(loaded);
    expect(reload(file).messages).toEqual([...session.messages, user('after the restart')]);
  });

  it('reads a session written whole by an earlier version (a header and one message per line)', () => {
    const file = fileOf();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const header = { teamdSession: 1, handled: ['x'], usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    fs.writeFileSync(file, `${[header, user('old'), assistant('reply')].map((line) => JSON.stringify(line)).join('\n')}\n`);
    const back = reload(file);
    expect(back.messages).toEqual([user('old'), assistant('reply')]);
    expect(back.handled).toEqual(['x']);
  });

  it('a damaged line in the middle moves the file aside and starts fresh, saying so', () => {
    const file = fileOf();
    const store = new SessionStore(file, logger);
    const session = emptySession();
    session.messages.push(user('task'));
    store.save(session);
    fs.appendFileSync(file, 'not json\n{"set":0,"message":{"role":"user","content":[]}}\n');
    expect(reload(file).messages).toEqual([]);
    expect(fs.readdirSync(path.dirname(file)).some((name) => name.startsWith('alice.jsonl.corrupt-'))).toBe(true);
  });
});
