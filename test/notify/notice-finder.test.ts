import { describe, expect, it } from 'vitest';
import type { Member } from '../../src/contracts/roster.js';
import { NoticeFinder, type FinderView } from '../../src/notify/notice-finder.js';
import { openMailStore, openTaskBoard } from '../helpers/board.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { bashPermissionAsker, writeRoster } from '../helpers/team.js';

const MINUTE = 60_000;

/** A file store with alice (and the lead agent when asked), a clock the test moves, and a finder over them. */
async function finderOn(options: { lead?: boolean; leadAnswers?: FinderView['leadAnswers'] } = {}) {
  const root = makeTempDir('teamd-finder-');
  const paths = writeRoster(root, options.lead ? ['alice', 'lead'] : ['alice']);
  const { board } = openTaskBoard(root);
  const mail = openMailStore(paths);
  const members: Member[] = [
    { name: 'alice', role: 'coder', status: 'idle' },
    ...(options.lead ? [{ name: 'lead', role: 'lead', status: 'idle' } as Member] : []),
  ];
  let now = Date.parse('2026-12-08T01:00:00Z');
  const finder = new NoticeFinder({
    store: { board, mail },
    paths,
    view: () => ({ members, leadAnswers: options.leadAnswers ?? { plans: true, permissions: false }, stuckAfterMs: 10 * MINUTE }),
    now: () => now,
  });
  return { paths, board, mail, finder, pass: (ms: number) => (now += ms) };
}

const keys = async (finder: NoticeFinder) => (await finder.look()).notices.map((notice) => notice.key);

describe('finding what the person must hear of, on a real file store', () => {
  it('tells of a failure seen live and of one that came and went between two looks, never of one from before the start, once each', async () => {
    const { board, finder } = await finderOn();
    const old = await board.add({ subject: 'failed before the daemon' });
    await board.claim(old.id, 'alice');
    await board.fail(old.id, { owner: 'alice' }, 'long ago');
    await finder.start();
    expect(await keys(finder)).toEqual([]);
    const seen = await board.add({ subject: 'seen live' });
    await board.claim(seen.id, 'alice');
    expect(await keys(finder)).toEqual([]);
    await board.fail(seen.id, { owner: 'alice' }, 'broke');
    expect(await keys(finder)).toEqual([`task_failed:${seen.id}:1`]);
    // Added, claimed and failed between two looks: only the failed count shows it.
    const quick = await board.add({ subject: 'quick' });
    await board.claim(quick.id, 'alice');
    await board.fail(quick.id, { owner: 'alice' }, 'at once');
    expect(await keys(finder)).toEqual([`task_failed:${quick.id}:1`]);
    expect(await keys(finder)).toEqual([]);
  });

  it('a board with work nothing can take is stuck at once; ready work nobody takes, only once the board has been still for stuckAfterMs', async () => {
    const { board, finder, pass } = await finderOn();
    await finder.start();
    const ready = await board.add({ subject: 'nobody takes me' });
    const first = await finder.look();
    expect(first.notices).toEqual([]);
    // The finder says when to look again though nothing rings: when the wait would make it stuck.
    expect(first.lookAgainAt).not.toBeNull();
    pass(10 * MINUTE);
    const untaken = (await finder.look()).notices;
    expect(untaken.map((notice) => notice.kind)).toEqual(['board_stuck']);
    expect(untaken[0]!.text).toMatch(new RegExp(`^1 ready task\\(s\\) \\(#${ready.id}\\) not taken for 10 min`));
    // Blocked on a failure: stuck at once, a state of its own.
    await board.claim(ready.id, 'alice');
    const blocked = await board.add({ subject: 'after it', blockedBy: [ready.id] });
    await board.fail(ready.id, { owner: 'alice' }, 'no');
    const notices = (await finder.look()).notices;
    expect(notices.map((notice) => notice.kind).sort()).toEqual(['board_stuck', 'task_failed']);
    expect(notices.find((notice) => notice.kind === 'board_stuck')!.text).toBe(`1 pending task(s) wait on failed or cancelled task(s) #${ready.id}`);
    expect(notices.find((notice) => notice.kind === 'board_stuck')!.key).not.toBe(untaken[0]!.key);
    await board.cancel(blocked.id);
    expect((await finder.look()).notices.filter((notice) => notice.kind === 'board_stuck')).toEqual([]);
  });

  it('ready work waiting while a teammate works on another task is a busy team, not a stuck board', async () => {
    const { board, finder, pass } = await finderOn();
    await finder.start();
    const held = await board.add({ subject: 'in hand' });
    await board.claim(held.id, 'alice');
    await board.add({ subject: 'next' });
    expect((await finder.look()).lookAgainAt).toBeNull();
    pass(60 * MINUTE);
    expect((await finder.look()).notices).toEqual([]);
  });

  it('tells of the requests the person answers: all without a lead agent; with one, only those the settings keep from it', async () => {
    const alone = await finderOn();
    const task = await alone.board.add({ subject: 'needs a command' });
    await alone.board.claim(task.id, 'alice');
    await alone.finder.start();
    bashPermissionAsker(alone.paths, task.id)('alice', 'rm -rf build');
    const told = (await alone.finder.look()).notices;
    expect(told.map((notice) => [notice.kind, notice.request?.kind])).toEqual([['request', 'permission']]);
    expect(told[0]!.title).toBe(`alice asks to run bash: rm -rf build (task ${task.id})`);

    const led = await finderOn({ lead: true, leadAnswers: { plans: true, permissions: true } });
    const ledTask = await led.board.add({ subject: 'needs a command' });
    await led.board.claim(ledTask.id, 'alice');
    await led.finder.start();
    bashPermissionAsker(led.paths, ledTask.id)('alice', 'rm -rf build');
    expect((await led.finder.look()).notices).toEqual([]);
  });
});
