import { describe, expect, it } from 'vitest';
import { parseInboxChunk } from '../../../src/store/files/inbox-parser.js';
import { serializeMessage, type Message } from '../../../src/contracts/message.js';

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

describe('parseInboxChunk with only some types', () => {
  const ASKED = ['plan_approval_request', 'permission_request'] as const;
  const request = (id: string, type: Message['type'], content = `content of ${id}`): Message => ({ ...message(id, content), type, requestId: `r-${id}` });

  /** Every kind of line an inbox may hold, mixed by a fixed pseudo-random sequence. */
  function mixedInbox(lines: number): string {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % 9;
    let text = '';
    for (let i = 0; i < lines; i++) {
      const id = `m${i}`;
      const kind = next();
      if (kind === 0) text += serializeMessage(request(id, 'plan_approval_request'));
      else if (kind === 1) text += serializeMessage(request(id, 'permission_request'));
      // A type spelled with a JSON escape is still that type.
      else if (kind === 2) text += serializeMessage(request(id, 'plan_approval_request')).replace('"plan_approval_request"', '"plan\\u005fapproval_request"');
      // Naming a type in the content does not make a message of it.
      else if (kind === 3) text += serializeMessage(message(id, 'about "plan_approval_request" and "permission_request"'));
      else if (kind === 4)
        text += `${serializeMessage(request(`torn${i}`, 'permission_request')).slice(0, 50)}${serializeMessage(request(id, 'permission_request'))}`;
      else if (kind === 5) text += `not json at all ${i}\n`;
      else if (kind === 6) text += `{"id":"x${i}","type":"permission_request"}\n`;
      else text += line(id);
    }
    return text;
  }

  it('returns what a full parse returns of those types, with the same offsets', () => {
    const text = mixedInbox(400);
    const full = parseInboxChunk(Buffer.from(text), 11);
    const asked = parseInboxChunk(Buffer.from(text), 11, ASKED);
    const wanted = full.messages.filter((m) => (ASKED as readonly string[]).includes(m.message.type));
    expect(wanted.length).toBeGreaterThan(100);
    expect(wanted.some((m) => text.includes(`"id":"${m.message.id}","type":"plan\\u005fapproval_request"`))).toBe(true);
    expect(asked.messages).toEqual(wanted);
    expect(asked.end).toBe(full.end);
  });

  it('passes over unparsed, and so unreported, a line that cannot be of those types; reports one that may be', () => {
    const text = mixedInbox(400);
    const full = parseInboxChunk(Buffer.from(text), 0);
    const asked = parseInboxChunk(Buffer.from(text), 0, ASKED);
    const lineAt = (offset: number): string => Buffer.from(text).subarray(offset).toString('utf8').split('\n')[0]!;
    const mayBe = (offset: number): boolean => ASKED.some((type) => lineAt(offset).includes(`"${type}"`)) || lineAt(offset).includes('\\u');
    expect(full.skipped.some((s) => !mayBe(s.offset))).toBe(true);
    expect(asked.skipped).toEqual(full.skipped.filter((s) => mayBe(s.offset)));
    expect(asked.skipped.some((s) => /not a valid message/.test(s.reason))).toBe(true);
    expect(asked.skipped.some((s) => /torn fragment/.test(s.reason))).toBe(true);
  });
});
