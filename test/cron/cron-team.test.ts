import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { statePaths } from '../../src/paths.js';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

function workspace() {
  const ws = makeTempDir('teamd-ws-');
  const dir = path.join(ws, '.team');
  fs.mkdirSync(path.join(dir, 'tasks'), { recursive: true });
  const paths = statePaths(dir);
  const inbox = (name: string) => readInboxFrom(paths.inboxFile(name), 0).messages.map((m) => m.message);
  const scheduled = (name: string) => inbox(name).filter((m) => m.type === 'scheduled');
  return { ws, dir, paths, inbox, scheduled };
}

const cron = (dir: string, ...args: string[]) => runTeamd(['cron', ...args, '--dir', dir]);

describe('teamd cron with a running daemon', () => {
  it('a repeating job fires once per scheduled time (per second here: the minute case runs on a moved clock in scheduler.test.ts)', async () => {
    const { dir, scheduled } = workspace();
    await startDaemon(dir);
    const added = await cron(dir, 'add', '* * * * * *', '--to', 'lead', 'tick', '--json');
    expect(added.code, added.stderr).toBe(0);
    const job = JSON.parse(added.stdout) as { id: string; nextAt: string };
    const ticks = await waitFor(() => (scheduled('lead').length >= 3 ? scheduled('lead') : undefined), 'three ticks');
    expect((await cron(dir, 'rm', job.id)).code).toBe(0);
    const seconds = ticks.map((m) => Math.floor(Date.parse(m.timestamp) / 1000));
    expect(new Set(seconds).size).toBe(seconds.length);
    expect(ticks.every((m) => m.content === 'tick' && m.from === 'lead')).toBe(true);
    expect(JSON.parse((await cron(dir, 'list', '--json')).stdout)).toEqual([]);
  });

  it('a one-shot --in 2s fires once, and leaves the schedule; --task puts a task on the board for a role', async () => {
    const { dir, scheduled } = workspace();
    await startDaemon(dir);
    const { board } = openBoard(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const once = await cron(dir, 'add', '--in', '2s', '--to', 'alice', 'stand-up in five minutes');
    expect(once.stdout).toMatch(/^scheduled c1: once at .* to alice; next /);
    expect((await cron(dir, 'add', '--in', '1s', '--task', '--to', 'role:coder', 'nightly build\nrun the whole suite')).code).toBe(0);
    await waitFor(() => board.list().tasks.find((t) => t.subject === 'nightly build'), 'the scheduled task');
    expect(board.list().tasks.find((t) => t.subject === 'nightly build')).toMatchObject({ role: 'coder', description: 'nightly build\nrun the whole suite' });
    await waitFor(() => scheduled('alice').length > 0 || undefined, "alice's reminder");
    expect(JSON.parse((await cron(dir, 'list', '--json')).stdout)).toEqual([]);
    expect(scheduled('alice').map((m) => m.content)).toEqual(['stand-up in five minutes']);
  });

  it('runs due while the daemon was down are reported to the lead once after teamd start, not replayed', async () => {
    const { dir, paths, scheduled } = workspace();
    // Two years ago: a yearly job missed exactly two runs, and none of them can be on time now (unless this runs at new year).
    const longAgo = new Date(Date.now() - 2 * 365 * 24 * 3600_000 - 3600_000).toISOString();
    // As if added long ago and the daemon stopped since: a yearly job and a one-shot, both due meanwhile.
    fs.writeFileSync(
      paths.cronFile,
      JSON.stringify({
        nextId: 3,
        jobs: [
          { id: 'c1', cron: '0 0 1 1 *', tz: 'UTC', to: 'lead', message: 'yearly report', createdBy: 'lead', createdAt: longAgo },
          { id: 'c2', at: new Date(Date.now() - 3600_000).toISOString(), to: 'lead', message: 'one-shot', createdBy: 'lead', createdAt: longAgo },
        ],
      }),
    );
    await startDaemon(dir);
    const reports = await waitFor(() => (scheduled('lead').length >= 2 ? scheduled('lead') : undefined), 'the missed-run reports');
    expect(reports.map((m) => m.content)).toEqual([
      expect.stringMatching(
        /^cron job c1 \("0 0 1 1 \*" UTC to lead\) missed 2 runs since 20\d\d-01-01T00:00:00.000Z while the daemon was not running; not replayed/,
      ),
      expect.stringMatching(/^one-shot job c2 \(at .* to lead\) missed 1 run since /),
    ]);
    expect(reports.some((m) => m.content === 'yearly report' || m.content === 'one-shot')).toBe(false);
    const left = JSON.parse((await cron(dir, 'list', '--json')).stdout) as { id: string; lastFiredFor: string }[];
    expect(left.map((j) => j.id)).toEqual(['c1']);
    // Restarted: nothing is reported twice.
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    await startDaemon(dir);
    expect((await runTeamd(['status', '--dir', dir])).code).toBe(0);
    expect(scheduled('lead')).toHaveLength(2);
  });

  it('refuses bad input with one line naming it, and changes nothing', async () => {
    const { dir, paths } = workspace();
    const refused = async (args: string[], message: string | RegExp, code = 2): Promise<void> => {
      const result = await cron(dir, ...args);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr.trim().split('\n')[0]).toMatch(message);
    };
    await refused(['add', '61 * * * *', '--to', 'lead', 'x'], 'teamd: invalid cron expression "61 * * * *": Invalid value for minute: 61');
    await refused(['add', '* * * * *', '--to', 'lead', 'x', '--tz', 'Mars/Base'], /unknown time zone "Mars\/Base"/);
    await refused(
      ['add', '* * * * *', '--to', 'zed', 'x'],
      'teamd: zed is neither a teammate nor a role on the team (see teamd team); use lead, a name, or role:<role>',
    );
    await refused(['add', '--in', '5m', '--to', 'lead'], /missing required argument/);
    await refused(['add', '* * * * *', '--to', 'lead'], /give a cron expression and a message, or --in\/--at and a message/);
    await refused(['add', '--at', 'yesterday', '--to', 'lead', 'x'], /"yesterday" is not a time/);
    await refused(['add', '--at', '2001-01-01T00:00:00Z', '--to', 'lead', 'x'], /has passed already/);
    await refused(['add', '--in', 'soon', '--to', 'lead', 'x'], /expected a duration/);
    await refused(['rm', 'c9'], 'teamd: there is no scheduled job "c9" (see teamd cron list)');
    expect(fs.existsSync(paths.cronFile)).toBe(false);
    fs.writeFileSync(paths.cronFile, '{"jobs": 3}');
    await refused(['list'], new RegExp(`^teamd: ${paths.cronFile} is not a valid schedule \\(jobs: `), 1);
  });

  it('a teammate schedules a reminder with schedule_cron; it reaches the lead from that teammate', async () => {
    const { dir, scheduled } = workspace();
    const { board } = openBoard(dir);
    const calls = [
      { name: 'schedule_cron', input: { in_seconds: 1, to: 'lead', message: 'check the deploy' } },
      { name: 'list_crons', input: {} },
    ];
    await board.add({ subject: 'remind the lead', description: `\`\`\`teamd-calls\n${JSON.stringify(calls)}\n\`\`\`` });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const reminder = await waitFor(() => scheduled('lead')[0], 'the reminder');
    expect(reminder).toMatchObject({ from: 'alice', content: 'check the deploy' });
    expect(board.get(1)).toMatchObject({ status: 'completed', result: expect.stringContaining('scheduled c1') });
  });

  it('schedule_cron passes through the permission rules: a deny rule refuses it, and nothing is scheduled', async () => {
    const { dir, paths } = workspace();
    const { board } = openBoard(dir);
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions', deny: ['schedule_cron'] } }));
    const calls = [{ name: 'schedule_cron', input: { in_seconds: 1, to: 'lead', message: 'never sent' }, allowError: true }];
    await board.add({ subject: 'try to schedule', description: `\`\`\`teamd-calls\n${JSON.stringify(calls)}\n\`\`\`` });
    await startDaemon(dir);
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const done = await waitFor(() => (board.get(1).status === 'completed' ? board.get(1) : undefined), 'task 1 done');
    expect(done.result).toContain('denied by the rule schedule_cron');
    expect(fs.existsSync(paths.cronFile)).toBe(false);
  });
});
