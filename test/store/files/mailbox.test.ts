import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TeamdError } from '../../../src/errors.js';
import { readInboxFrom } from '../../../src/store/files/inbox-file.js';
import { Mailbox } from '../../../src/store/files/mailbox.js';
import { MAX_CONTENT_BYTES } from '../../../src/contracts/message.js';
import { createLogger } from '../../../src/log/logger.js';
import { startFixture } from '../../helpers/processes.js';
import { writeRoster } from '../../helpers/team.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

function setup(names: string[] = ['alice', 'bob']) {
  const paths = writeRoster(makeTempDir(), names);
  return { paths, mailbox: new Mailbox({ paths, logger: createLogger() }) };
}

function errorOf(fn: () => unknown): TeamdError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TeamdError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('Mailbox', () => {
  it('appends one line per message to the recipient inbox, with the contract fields', () => {
    const { paths, mailbox } = setup();
    const sent = mailbox.send({ from: 'lead', to: 'alice', content: 'hi' });
    const lines = fs.readFileSync(paths.inboxFile('alice'), 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({ id: sent.id, type: 'message', from: 'lead', to: 'alice', content: 'hi', timestamp: sent.timestamp });
  });

  it('the lead always exists; an unknown recipient is refused, naming it, and no file is created', () => {
    const { paths, mailbox } = setup();
    expect(mailbox.send({ from: 'alice', to: 'lead', content: 'done' }).to).toBe('lead');
    const error = errorOf(() => mailbox.send({ from: 'lead', to: 'alcie', content: 'typo' }));
    expect(error.code).toBe('UNKNOWN_RECIPIENT');
    expect(error.message).toContain('"alcie"');
    expect(error.message).toContain('lead, alice, bob');
    expect(fs.existsSync(paths.inboxFile('alcie'))).toBe(false);
  });

  it('refuses path tricks in names before touching the filesystem', () => {
    const { paths, mailbox } = setup();
    expect(errorOf(() => mailbox.send({ from: 'lead', to: '../../etc/passwd', content: 'x' })).code).toBe('INVALID_NAME');
    expect(errorOf(() => mailbox.send({ from: '../x', to: 'alice', content: 'x' })).code).toBe('INVALID_NAME');
    expect(fs.readdirSync(paths.root).sort()).toEqual(['config.json']);
  });

  it('refuses oversized content with the limit and a way out, and writes nothing', () => {
    const { paths, mailbox } = setup();
    const error = errorOf(() => mailbox.send({ from: 'lead', to: 'alice', content: 'x'.repeat(MAX_CONTENT_BYTES + 1) }));
    expect(error.code).toBe('MESSAGE_TOO_LARGE');
    expect(error.message).toMatch(/limit is 262144/);
    expect(fs.existsSync(paths.inboxFile('alice'))).toBe(false);
  });

  it('stamps id and sender itself: extra fields cannot override them', () => {
    const { mailbox } = setup();
    const sent = mailbox.send({ from: 'alice', to: 'bob', content: 'x', extra: { from: 'lead', id: 'forged', taskId: 3 } });
    expect(sent.from).toBe('alice');
    expect(sent.id).not.toBe('forged');
    expect(sent.taskId).toBe(3);
  });

  it('gives protocol messages a requestId and requires responses to approve or reject', () => {
    const { mailbox } = setup();
    const request = mailbox.send({ from: 'lead', to: 'alice', type: 'shutdown_request', content: 'please stop' });
    expect(request.requestId).toEqual(expect.any(String));
    expect(errorOf(() => mailbox.send({ from: 'alice', to: 'lead', type: 'shutdown_response', content: 'ok', requestId: request.requestId })).code).toBe(
      'INVALID_INPUT',
    );
    const response = mailbox.send({ from: 'alice', to: 'lead', type: 'shutdown_response', content: 'ok', requestId: request.requestId, approve: true });
    expect(response).toMatchObject({ requestId: request.requestId, approve: true });
  });

  it('broadcast reaches every member and the lead but the sender, each with its own id', () => {
    const { paths, mailbox } = setup(['alice', 'bob', 'carol']);
    const sent = mailbox.broadcast({ from: 'bob', content: 'standup' });
    expect(sent.map((m) => m.to)).toEqual(['lead', 'alice', 'carol']);
    expect(new Set(sent.map((m) => m.id)).size).toBe(3);
    expect(fs.existsSync(paths.inboxFile('bob'))).toBe(false);
  });

  it('a corrupt roster is an error naming the file, but the lead can still be reached', () => {
    const { paths, mailbox } = setup();
    fs.writeFileSync(paths.config, '{"members": [');
    expect(errorOf(() => mailbox.send({ from: 'lead', to: 'alice', content: 'x' })).message).toContain(paths.config);
    expect(mailbox.send({ from: 'alice', to: 'lead', content: 'still here' }).to).toBe('lead');
  });

  it('after a writer is killed mid-append, every later message arrives intact', async () => {
    const { paths, mailbox } = setup(['sink']);
    mailbox.send({ from: 'alice', to: 'sink', content: 'before' });
    const torn = startFixture('torn-writer.mjs', [paths.inboxFile('sink')]);
    await new Promise((resolve) => torn.once('exit', resolve));
    expect(fs.readFileSync(paths.inboxFile('sink'), 'utf8').endsWith('\n')).toBe(false);
    const after = [1, 2, 3].map((n) => mailbox.send({ from: 'bob', to: 'sink', content: `after ${n}` }));
    const read = readInboxFrom(paths.inboxFile('sink'), 0);
    expect(read.messages.map((m) => m.message.content)).toEqual(['before', 'after 1', 'after 2', 'after 3']);
    expect(read.messages.slice(1).map((m) => m.message.id)).toEqual(after.map((m) => m.id));
    expect(read.skipped).toHaveLength(1);
  });
});
