import { describe, expect, it } from 'vitest';
import { TeamdError } from '../../src/errors.js';
import { codeOf } from '../helpers/errors.js';
import { MAX_CONTENT_BYTES } from '../../src/contracts/message.js';
import { STORES } from '../helpers/stores.js';

const contents = (messages: readonly { content: string }[]): string[] => messages.map((message) => message.content);

// The same tests against every store: delivery does not depend on where the inboxes live.
describe.each(STORES)('the mailboxes on the $name store', (store) => {
  describe.skipIf(!store.available)('contract', () => {
    it('delivers to the recipient in the order sent, with the contract fields', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['alice', 'bob']);
      const first = await mail.send({ from: 'lead', to: 'alice', content: 'one' });
      await mail.send({ from: 'bob', to: 'alice', content: 'two' });
      const { messages, next } = await mail.inbox('alice');
      expect(messages[0]).toEqual({ id: first.id, type: 'message', from: 'lead', to: 'alice', content: 'one', timestamp: first.timestamp });
      expect(contents(messages)).toEqual(['one', 'two']);
      await mail.send({ from: 'bob', to: 'alice', content: 'three' });
      expect(contents((await mail.inbox('alice', next)).messages)).toEqual(['three']);
      expect((await mail.inbox('bob')).messages).toEqual([]);
    });

    it('the lead and the person always exist; an unknown recipient is refused, naming it, and nothing is stored', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['alice', 'bob']);
      expect((await mail.send({ from: 'alice', to: 'lead', content: 'done' })).to).toBe('lead');
      expect((await mail.send({ from: 'lead', to: 'user', content: 'report' })).to).toBe('user');
      const error = (await mail.send({ from: 'lead', to: 'alcie', content: 'typo' }).catch((e: unknown) => e)) as TeamdError;
      expect(error.code).toBe('UNKNOWN_RECIPIENT');
      expect(error.message).toContain('"alcie"');
      expect(error.message).toContain('lead, alice, bob, user');
      expect((await mail.inbox('alcie')).messages).toEqual([]);
      expect(await mail.recipients()).toEqual(['lead', 'alice', 'bob', 'user']);
    });

    it('refuses path tricks in names, oversized content, and a response without its answer', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['alice']);
      expect(await codeOf(mail.send({ from: 'lead', to: '../../etc/passwd', content: 'x' }))).toBe('INVALID_NAME');
      expect(await codeOf(mail.send({ from: '../x', to: 'alice', content: 'x' }))).toBe('INVALID_NAME');
      const big = (await mail.send({ from: 'lead', to: 'alice', content: 'x'.repeat(MAX_CONTENT_BYTES + 1) }).catch((e: unknown) => e)) as TeamdError;
      expect(big.code).toBe('MESSAGE_TOO_LARGE');
      expect(big.message).toMatch(/limit is 262144/);
      expect(await codeOf(mail.send({ from: 'alice', to: 'lead', type: 'shutdown_response', content: 'ok', requestId: 'r1' }))).toBe('INVALID_INPUT');
      expect((await mail.inbox('alice')).messages).toEqual([]);
    });

    it('stamps id and sender itself and keeps extra fields; protocol requests get a requestId', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['alice', 'bob']);
      const sent = await mail.send({ from: 'alice', to: 'bob', content: 'x', extra: { from: 'lead', id: 'forged', taskId: 3 } });
      expect(sent).toMatchObject({ from: 'alice', taskId: 3 });
      expect(sent.id).not.toBe('forged');
      const request = await mail.send({ from: 'lead', to: 'alice', type: 'shutdown_request', content: 'please stop' });
      expect(request.requestId).toEqual(expect.any(String));
      expect((await mail.inbox('bob')).messages[0]).toMatchObject({ id: sent.id, taskId: 3 });
    });

    it('reads only the types asked for, in order, and a read from where that one ended goes on', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['alice']);
      await mail.send({ from: 'alice', to: 'lead', content: 'one' });
      const plan = await mail.send({ from: 'alice', to: 'lead', type: 'plan_approval_request', content: 'my plan' });
      await mail.send({ from: 'alice', to: 'lead', content: 'about "plan_approval_request" and "permission_request"' });
      const asked = ['plan_approval_request', 'permission_request'] as const;
      const page = await mail.inbox('lead', 0, asked);
      expect(page.messages.map((m) => m.id)).toEqual([plan.id]);
      const permission = await mail.send({ from: 'alice', to: 'lead', type: 'permission_request', content: 'may I run make?' });
      await mail.send({ from: 'alice', to: 'lead', content: 'two' });
      expect((await mail.inbox('lead', page.next, asked)).messages.map((m) => m.id)).toEqual([permission.id]);
      expect(contents((await mail.inbox('lead')).messages)).toHaveLength(5);
    });

    it('broadcast reaches every member and the lead but the sender, never the person, each with its own id', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['alice', 'bob', 'carol']);
      const sent = await mail.broadcast({ from: 'bob', content: 'standup' });
      expect(sent.map((m) => m.to).sort()).toEqual(['alice', 'carol', 'lead']);
      expect(new Set(sent.map((m) => m.id)).size).toBe(3);
      expect((await mail.inbox('bob')).messages).toEqual([]);
      expect((await mail.inbox('user')).messages).toEqual([]);
      expect(contents((await mail.inbox('carol')).messages)).toEqual(['standup']);
    });

    it('a reader gets the same messages until it commits them, then only new ones; a new reader goes on from the commit', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['sink']);
      await mail.send({ from: 'lead', to: 'sink', content: 'one' });
      await mail.send({ from: 'lead', to: 'sink', content: 'two' });
      const reader = mail.reader({ name: 'sink' });
      const first = await reader.read();
      expect(contents(first.messages)).toEqual(['one', 'two']);
      expect(contents((await reader.read()).messages)).toEqual(['one', 'two']);
      await reader.commit(first);
      await mail.send({ from: 'lead', to: 'sink', content: 'three' });
      expect(contents((await reader.read()).messages)).toEqual(['three']);
      // A restarted reader (a new process): from the committed cursor, not from the start.
      expect(contents((await mail.reader({ name: 'sink' }).read()).messages)).toEqual(['three']);
    });

    it('drops ids its durable store already handled (killed between handling and commit)', async () => {
      const { mail, addMembers } = await store.open();
      await addMembers(['sink']);
      const one = await mail.send({ from: 'lead', to: 'sink', content: 'one' });
      await mail.send({ from: 'lead', to: 'sink', content: 'two' });
      const restarted = mail.reader({ name: 'sink', isHandled: (id) => id === one.id });
      const batch = await restarted.read();
      expect(contents(batch.messages)).toEqual(['two']);
      await restarted.commit(batch);
      expect((await mail.reader({ name: 'sink' }).read()).messages).toEqual([]);
    });

    it("the lead agent's cursor is its own: the person's reading of lead's inbox does not move it", async () => {
      const { mail } = await store.open();
      await mail.send({ from: 'user', to: 'lead', content: 'the goal' });
      const person = mail.reader({ name: 'lead' });
      await person.commit(await person.read());
      const agent = mail.reader({ name: 'lead', cursor: 'lead-agent' });
      expect(contents((await agent.read()).messages)).toEqual(['the goal']);
    });

    it('six senders racing: every message arrives once, each sender in its own order', async () => {
      const { mail, addMembers } = await store.open();
      const senders = ['s0', 's1', 's2', 's3', 's4', 's5'];
      await addMembers(['sink', ...senders]);
      await Promise.all(
        senders.map(async (from) => {
          for (let n = 0; n < 25; n++) await mail.send({ from, to: 'sink', content: `${from}:${n}` });
        }),
      );
      const { messages } = await mail.inbox('sink');
      expect(messages).toHaveLength(150);
      expect(new Set(messages.map((m) => m.id)).size).toBe(150);
      for (const from of senders) {
        expect(messages.filter((m) => m.from === from).map((m) => Number(m.content.split(':')[1]))).toEqual(Array.from({ length: 25 }, (_, n) => n));
      }
    });
  });
});
