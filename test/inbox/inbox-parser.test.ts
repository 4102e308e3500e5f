import { describe, expect, it } from 'vitest';
import { parseInboxChunk } from '../../src/inbox/inbox-parser.js';
import { serializeMessage, type Message } from '../../src/inbox/message.js';

function message(id: string, content = `content of ${id}`): Message {
  return { id, type: 'message', from: 'alice', to: 'bob', content, timestamp: '2026-01-01T00:00:00.000Z' };
}

const line = (id: string): string => serializeMessage(message(id));

describe('parseInboxChunk', () => {
  it('returns complete lines with the offset just past each', () => {
    const text = line('a') + line('b');
    const parsed = parseInboxChunk(Buffer.from(text), 100);
    expect(parsed.messages.map((m) => [m.message.id, m.end])).toEqual([
      ['a', 100 + line('a').length],
      ['b', 100 + text.length],
    ]);
    expect(parsed.end).toBe(100 + text.length);
  });

  it('never delivers a last line without its newline, and stops the offset before it', () => {
    const partial = line('b').slice(0, -1);
    const parsed = parseInboxChunk(Buffer.from(line('a') + partial), 0);
    expect(parsed.messages.map((m) => m.message.id)).toEqual(['a']);
    expect(parsed.end).toBe(line('a').length);
  });

  it('recovers a whole record glued onto a torn fragment, and reports the fragment', () => {
    const torn = line('dead').slice(0, 40);
    const parsed = parseInboxChunk(Buffer.from(line('a') + torn + line('b') + line('c')), 0);
    expect(parsed.messages.map((m) => m.message.id)).toEqual(['a', 'b', 'c']);
    expect(parsed.skipped).toHaveLength(1);
    expect(parsed.skipped[0]?.reason).toMatch(/torn fragment of 40 bytes/);
  });

  it('does not mistake a record quoted inside content for a record start', () => {
    const quoting = message('q', line('inner').trim());
    const torn = serializeMessage(quoting).slice(0, 90);
    const parsed = parseInboxChunk(Buffer.from(`${torn}\n${line('b')}`), 0);
    expect(parsed.messages.map((m) => m.message.id)).toEqual(['b']);
    expect(parsed.skipped).toHaveLength(1);
  });

  it('skips malformed and invalid lines, and empty lines silently', () => {
    const parsed = parseInboxChunk(Buffer.from(`not json\n\n{"id":"x","type":"bogus"}\n${line('a')}`), 0);
    expect(parsed.messages.map((m) => m.message.id)).toEqual(['a']);
    expect(parsed.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/not JSON/), expect.stringMatching(/not a valid message/)]);
  });

  it('counts offsets in bytes, not characters', () => {
    const text = serializeMessage(message('u', 'héllo ✓ 😀')) + line('b');
    const parsed = parseInboxChunk(Buffer.from(text), 0);
    expect(parsed.end).toBe(Buffer.byteLength(text));
  });
});
