import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { noticeLineSchema, type Notice, type NoticeLine } from '../../src/contracts/notifications.js';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { Mailbox } from '../../src/store/files/mailbox.js';
import { openBoard } from '../helpers/board.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, type Received } from '../helpers/webhook-receiver.js';

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

/** A workspace whose settings.json has a Notification hook (as Claude Code's docs write one) appending each payload it reads to notified.jsonl. */
function workspace(): { ws: string; dir: string } {
  const ws = makeTempDir('teamd-notify-');
  const dir = path.join(ws, '.team');
  fs.mkdirSync(dir, { recursive: true });
  const hook = 'jq -c \'{hook_event_name, notification_type, message, teammate, key: .notice.key}\' >> "$CLAUDE_PROJECT_DIR/notified.jsonl"';
  fs.writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({
      permissions: { defaultMode: 'bypassPermissions' },
      hooks: { Notification: [{ matcher: '', hooks: [{ type: 'command', command: hook }] }] },
    }),
  );
  return { ws, dir };
}

const bodies = (received: readonly Received[]): (Notice & { team: string })[] => received.map((r) => JSON.parse(r.body) as Notice & { team: string });
const ledger = (dir: string): NoticeLine[] =>
  fs
    .readFileSync(statePaths(dir).notifications, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => noticeLineSchema.parse(JSON.parse(line)));
const hookLines = (ws: string): Record<string, string>[] => {
  const file = path.join(ws, 'notified.jsonl');
  return fs.existsSync(file)
    ? (fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)) as Record<string, string>[])
    : [];
};

async function add(dir: string, ...args: string[]): Promise<number> {
  const added = await runTeamd(['task', 'add', ...args, '--dir', dir, '--json']);
  expect(added.code, added.stderr).toBe(0);
  return (JSON.parse(added.stdout) as { id: number }).id;
}

describe('notifications: webhooks and Notification hooks for what needs the person (issue 50)', () => {
  it('tells of a failed task, the board it leaves stuck and the final report, once each (JSON and Slack), runs the hooks, and sends nothing twice after a restart', async () => {
    const { ws, dir } = workspace();
    const json = await startReceiver();
    const slack = await startReceiver();
    const secret = '/services/T000/B000/not-to-be-logged';
    const notifications = { webhooks: [{ url: json.url('/hook') }, { url: slack.url(secret), format: 'slack', events: ['task_failed'] }] };
    await startDaemon(dir, { settings: { idleTimeoutMs: 0, notifications } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const broken = await add(dir, 'break the build <!channel>', '--description', sh('exit 3'));
    const after = await add(dir, 'ship it', '--blocked-by', String(broken));
    const kinds = () => bodies(json.received).map((notice) => notice.kind);
    await waitFor(() => kinds().includes('task_failed') && kinds().includes('board_stuck'), 'the failure and the stuck board told');
    const failed = bodies(json.received).find((notice) => notice.kind === 'task_failed')!;
    expect(failed).toMatchObject({ team: path.basename(ws), task: broken, teammate: 'alice', key: `task_failed:${broken}:1` });
    expect(failed.title).toBe(`task ${broken} failed (alice): break the build <!channel>`);
    expect(failed.text).toContain('`exit 3` failed: exit code 3');
    expect(bodies(json.received).find((notice) => notice.kind === 'board_stuck')!.text).toContain(`wait on failed or cancelled task(s) #${broken}`);
    // Slack's text, its markup escaped: what a teammate wrote pings nobody. Only the kinds it asked for.
    await waitFor(() => slack.received.length === 1 || null, 'the Slack webhook told');
    const text = (JSON.parse(slack.received[0]!.body) as { text: string }).text;
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).not.toContain('<!channel>');
    expect(slack.received[0]!.headers['content-type']).toBe('application/json');

    // The lead's final report on a goal, as the lead agent sends it.
    const paths = statePaths(dir);
    new Mailbox({ paths, logger: createLogger() }).send({
      from: 'lead',
      to: 'user',
      content: 'Done: 1 of 2 tasks.\nThe build is broken.',
      extra: { report: 'final' },
    });
    await waitFor(() => kinds().includes('final_report') || null, 'the final report told');
    expect(bodies(json.received).find((notice) => notice.kind === 'final_report')!.title).toBe('lead reports on the goal: Done: 1 of 2 tasks.');

    // The hooks ran in the sandbox with Claude Code's payload fields, matched on the kind of notification.
    await waitFor(() => hookLines(ws).length >= 3 || null, 'the Notification hooks');
    expect(hookLines(ws)).toEqual(
      expect.arrayContaining([
        { hook_event_name: 'Notification', notification_type: 'task_failed', message: failed.title, teammate: 'alice', key: failed.key },
        expect.objectContaining({ notification_type: 'board_stuck', teammate: 'lead' }),
        expect.objectContaining({ notification_type: 'final_report', teammate: 'lead' }),
      ]),
    );
    const log = fs.readFileSync(paths.logFile('daemon'), 'utf8');
    expect(log).toContain('notice sent');
    expect(log).not.toContain(secret);

    // A restart tells nothing again; the next failure is told once.
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    await startDaemon(dir);
    const next = await add(dir, 'break it again', '--description', sh('exit 4'));
    await waitFor(() => bodies(json.received).some((notice) => notice.task === next) || null, 'the next failure told');
    const keys = bodies(json.received).map((notice) => notice.key);
    expect(keys.length).toBe(new Set(keys).size);
    expect(kinds().sort()).toEqual(['board_stuck', 'final_report', 'task_failed', 'task_failed']);
    expect(openBoard(dir).board.get(after).status).toBe('pending');
    expect(ledger(dir).filter((line) => line.type === 'sent' && !line.ok)).toEqual([]);
  });

  it("tells of a plan that waits for the person's answer (no lead agent to answer it), then the team goes on once it is approved", async () => {
    const { ws, dir } = workspace();
    const json = await startReceiver();
    await startDaemon(dir, { settings: { idleTimeoutMs: 0, notifications: { webhooks: [{ url: json.url('/plans'), events: ['request'] }] } } });
    expect((await runTeamd(['spawn', 'planner', 'coder', '--plan', '--dir', dir])).code).toBe(0);
    const id = await add(dir, 'careful change', '--description', sh('echo done > careful.txt'));
    await waitFor(() => json.received.length === 1 || null, 'the plan told');
    const notice = bodies(json.received)[0]!;
    expect(notice).toMatchObject({ kind: 'request', task: id, teammate: 'planner', request: { kind: 'plan' } });
    expect(notice.text).toContain('echo done > careful.txt');
    expect(notice.text).toContain(`teamd approve ${notice.request!.id.slice(0, 8)}`);
    await waitFor(() => hookLines(ws).some((line) => line.notification_type === 'plan_approval') || null, 'the plan_approval hook');
    expect((await runTeamd(['approve', notice.request!.id.slice(0, 8), '--dir', dir])).code).toBe(0);
    await waitFor(() => openBoard(dir).board.get(id).status === 'completed' || null, 'the task done');
    expect(json.received.length).toBe(1);
  });

  it('takes up a sending the daemon stopped in the middle of at its next start, and refuses a setting that is not valid in one line', async () => {
    const { dir } = workspace();
    const stalling = await startReceiver(['stall']);
    await startDaemon(dir, { settings: { idleTimeoutMs: 0, notifications: { webhooks: [{ url: stalling.url('/slow') }], timeoutMs: 60_000 } } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const id = await add(dir, 'fail at once', '--description', sh('exit 1'));
    await waitFor(() => stalling.received.length === 1 || null, 'the POST under way');
    // The stop does not wait for the receiver; the notice stays unsent in the ledger.
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    expect(ledger(dir).map((line) => line.type)).toEqual(['notice']);
    const working = await startReceiver();
    await startDaemon(dir, { settings: { notifications: { webhooks: [{ url: working.url('/now') }] } } });
    await waitFor(() => working.received.length === 1 || null, 'the notice sent after the restart');
    expect(bodies(working.received)[0]).toMatchObject({ key: `task_failed:${id}:1`, kind: 'task_failed' });
    await waitFor(() => ledger(dir).some((line) => line.type === 'sent' && line.ok) || null, 'its sending recorded');

    const bad = workspace();
    fs.writeFileSync(
      path.join(bad.dir, 'config.json'),
      JSON.stringify({ members: [], settings: { notifications: { webhooks: [{ url: 'ftp://example.com/x' }] } } }),
    );
    const refused = await runTeamd(['start', '--dir', bad.dir]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/notifications\.webhooks\.0\.url.*http:\/\/ or https:\/\//);
  });
});
