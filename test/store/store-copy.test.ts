import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { readConfig } from '../../src/roster/roster.js';
import { openStore } from '../../src/store/open/open-store.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { writeRoster } from '../helpers/team.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const url = inject('pgUrl');

/** A file-store team with tasks in every state, messages in several inboxes, and readers part-way through them. */
async function fileTeam(): Promise<string> {
  const root = path.join(makeTempDir('teamd-copy-'), 'ws', '.team');
  writeRoster(root, ['alice', 'bob']);
  const store = await openStore({ kind: 'files' }, { paths: statePaths(root), logger: createLogger() });
  const { board, mail } = store;
  await board.add({ subject: 'first' });
  await board.add({ subject: 'second', blockedBy: [1], role: 'coder' });
  await board.add({ subject: 'third', key: 'goal/3', createdBy: 'lead' });
  await board.claim(1, 'alice');
  await board.complete(1, { owner: 'alice', claim: 1 }, 'done it');
  await board.claim(3, 'bob');
  for (let n = 0; n < 5; n++) await mail.send({ from: 'lead', to: 'alice', content: `to alice ${n}` });
  await mail.send({ from: 'alice', to: 'lead', type: 'plan_approval_request', content: 'my plan' });
  await mail.send({ from: 'user', to: 'lead', content: 'a goal' });
  await mail.broadcast({ from: 'bob', content: 'standup' });
  // alice has handled three of her six messages; the lead agent one of lead's three.
  const alice = mail.reader({ name: 'alice' });
  const first = await alice.read();
  await alice.commit({ messages: first.messages.slice(0, 3), next: { offset: offsetAfter(root, 'alice', 3), lastId: first.messages[2]!.id } });
  const agent = mail.reader({ name: 'lead', cursor: 'lead-agent' });
  const leads = await agent.read();
  await agent.commit({ messages: leads.messages.slice(0, 1), next: { offset: offsetAfter(root, 'lead', 1), lastId: leads.messages[0]!.id } });
  await store.close();
  return root;
}

function offsetAfter(root: string, inbox: string, lines: number): number {
  const text = fs.readFileSync(statePaths(root).inboxFile(inbox), 'utf8');
  return Buffer.byteLength(text.split('\n').slice(0, lines).join('\n') + '\n', 'utf8');
}

/** A task as stored, without the readiness computed when it is listed. */
const stored = (task: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(task).filter(([key]) => !['ready', 'stuck', 'waitingOn', 'stuckOn'].includes(key)));

/** What a team's state looks like through the store interface: the same whichever store holds it. */
async function view(root: string, store: Parameters<typeof openStore>[0]) {
  const opened = await openStore(store, { paths: statePaths(root), logger: createLogger() });
  try {
    const unread = async (name: string, cursor?: 'lead-agent') =>
      (await opened.mail.reader({ name, ...(cursor ? { cursor } : {}) }).read()).messages.map((m) => m.content);
    return {
      tasks: (await opened.board.list()).tasks,
      alice: (await opened.mail.inbox('alice')).messages,
      lead: (await opened.mail.inbox('lead')).messages,
      unreadAlice: await unread('alice'),
      unreadLeadAgent: await unread('lead', 'lead-agent'),
      members: (await opened.members.list()).map((entry) => entry.member.name).sort(),
      next: (await opened.board.add({ subject: 'after the copy' })).id,
    };
  } finally {
    await opened.close();
  }
}

describe.skipIf(url === null)('teamd store copy', () => {
  it('round-trips a team files -> postgres -> files with nothing lost: tasks, messages, cursors, roster, ids', async () => {
    const team = `copy-${randomUUID().slice(0, 6)}`;
    const a = await fileTeam();
    const b = path.join(makeTempDir('teamd-copy-back-'), 'ws', '.team');
    writeRoster(b, []);
    const there = await runTeamd(['store', 'copy', '--from', 'files', '--to', url!, '--team', team, '--host', 'h1', '--dir', a, '--json']);
    expect(there.code, there.stderr).toBe(0);
    expect(JSON.parse(there.stdout)).toMatchObject({ tasks: 3, messages: 9, cursors: 2, members: 2 });
    const back = await runTeamd(['store', 'copy', '--from', url!, '--to', 'files', '--team', team, '--dir', b, '--json']);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ tasks: 3, messages: 9, cursors: 2, members: 2 });

    const original = await view(a, { kind: 'files' });
    const inPostgres = await view(a, { kind: 'postgres', url: url!, team, host: 'h1' });
    const copiedBack = await view(b, { kind: 'files' });
    for (const copy of [inPostgres, copiedBack]) {
      expect(copy.tasks.map(stored)).toEqual(original.tasks.filter((task) => task.id <= 3).map(stored));
      expect(copy.alice).toEqual(original.alice);
      expect(copy.lead).toEqual(original.lead);
      expect(copy.unreadAlice).toEqual(['to alice 3', 'to alice 4', 'standup']);
      expect(copy.unreadLeadAgent).toEqual(original.unreadLeadAgent);
      expect(copy.members).toEqual(['alice', 'bob']);
      // Ids go on from the source's counter: never reused.
      expect(copy.next).toBe(4);
    }
    expect(readConfig(statePaths(b).config).members.map((m) => m.name)).toEqual(['alice', 'bob']);
  });

  it('refuses a target that already holds the team, and a team whose daemon runs; nothing is changed', async () => {
    const team = `busy-${randomUUID().slice(0, 6)}`;
    const a = await fileTeam();
    expect((await runTeamd(['store', 'copy', '--from', 'files', '--to', url!, '--team', team, '--dir', a])).code).toBe(0);
    const again = await runTeamd(['store', 'copy', '--from', 'files', '--to', url!, '--team', team, '--dir', a]);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('already holds');
    const running = path.join(makeTempDir('teamd-copy-run-'), 'ws', '.team');
    await startDaemon(running);
    const refused = await runTeamd(['store', 'copy', '--from', 'files', '--to', url!, '--team', `other-${team}`, '--dir', running]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('stop the daemon');
    const same = await runTeamd(['store', 'copy', '--from', 'files', '--to', 'files', '--dir', a]);
    expect(same.code).toBe(2);
  });
});
