import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { member, startDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { bashPermissionAsker, writeRoster } from '../helpers/team.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { request, startUi, type RunningUi } from '../helpers/ui.js';

const SECRET_SUBJECT = 'rotate the production keys';

/** A team of alice and bob (no daemon: the dashboard reads the files), one task, and `teamd ui` on it. */
async function dashboard(): Promise<{ dir: string; ui: RunningUi; paths: ReturnType<typeof writeRoster> }> {
  const dir = path.join(makeTempDir(), '.team');
  const paths = writeRoster(dir, ['alice', 'bob']);
  expect((await runTeamd(['task', 'add', SECRET_SUBJECT, '--dir', dir])).code).toBe(0);
  return { dir, paths, ui: await startUi(dir) };
}

/** The cookie the token's URL sets, and the CSRF value its page carries. */
async function signIn(ui: RunningUi): Promise<{ cookie: string; csrf: string }> {
  const landing = await request(ui.port, 'GET', `/?token=${encodeURIComponent(ui.token)}`);
  expect(landing.status).toBe(303);
  expect(landing.headers.location).toBe('/');
  const setCookie = landing.headers['set-cookie']![0]!;
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  const cookie = setCookie.split(';')[0]!;
  const page = await request(ui.port, 'GET', '/', { cookie });
  expect(page.status).toBe(200);
  expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
  const csrf = /name="teamd-csrf" content="([^"]+)"/.exec(page.body)![1]!;
  return { cookie, csrf };
}

const inboxOf = (dir: string, name: string) => readInboxFrom(path.join(dir, 'inbox', `${name}.jsonl`), 0).messages.map(({ message }) => message);

describe('teamd ui: who may read and change the team', () => {
  it('shows nothing of the team without the token, with a wrong one, or under another host name', async () => {
    const { ui } = await dashboard();
    const refusals = [
      await request(ui.port, 'GET', '/'),
      await request(ui.port, 'GET', '/?token=wrong'),
      await request(ui.port, 'GET', '/api/state'),
      await request(ui.port, 'GET', '/api/state', { authorization: 'Bearer wrong' }),
      await request(ui.port, 'GET', '/api/tasks/1', { cookie: `teamd_ui_${ui.port}=wrong` }),
      await request(ui.port, 'GET', '/api/events'),
      // DNS rebinding: a page of evil.example whose name now points at 127.0.0.1, with the right token even.
      await request(ui.port, 'GET', '/api/state', { host: `evil.example:${ui.port}`, authorization: `Bearer ${ui.token}` }),
    ];
    expect(refusals.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401, 401, 421]);
    for (const answer of refusals) {
      expect(answer.body).not.toContain(SECRET_SUBJECT);
      expect(answer.body).not.toContain('alice');
    }
    const allowed = await request(ui.port, 'GET', '/api/state', { authorization: `Bearer ${ui.token}` });
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.body).tasks.map((task: { subject: string }) => task.subject)).toEqual([SECRET_SUBJECT]);
  });

  it('refuses a change from another origin, without the CSRF value, or not sent as JSON; the same message from its own page is sent', async () => {
    const { dir, ui } = await dashboard();
    const { cookie, csrf } = await signIn(ui);
    const body = JSON.stringify({ to: 'alice', content: 'stop everything' });
    const json = { 'content-type': 'application/json' };
    const own = { origin: ui.origin, cookie, 'x-teamd-csrf': csrf, ...json };
    const attempts = [
      await request(ui.port, 'POST', '/api/send', { ...own, origin: 'http://evil.example' }, body),
      await request(ui.port, 'POST', '/api/send', { ...own, 'sec-fetch-site': 'cross-site' }, body),
      await request(ui.port, 'POST', '/api/send', { origin: ui.origin, cookie, ...json }, body),
      await request(ui.port, 'POST', '/api/send', { ...own, 'x-teamd-csrf': 'guessed' }, body),
      await request(ui.port, 'POST', '/api/send', { ...own, 'content-type': 'text/plain' }, body),
      await request(ui.port, 'POST', '/api/send', { cookie, 'x-teamd-csrf': csrf, ...json }, body),
    ];
    expect(attempts.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 403]);
    expect(JSON.parse(attempts[0]!.body).error.message).toBe('a change from another origin (http://evil.example) is refused');
    expect(inboxOf(dir, 'alice')).toEqual([]);

    const sent = await request(ui.port, 'POST', '/api/send', own, body);
    expect(sent.status, sent.body).toBe(200);
    expect(inboxOf(dir, 'alice').map((m) => [m.from, m.content])).toEqual([['lead', 'stop everything']]);
    // A script with the token (curl) may change things without a page: the header is its proof.
    const scripted = await request(
      ui.port,
      'POST',
      '/api/send',
      { authorization: `Bearer ${ui.token}`, ...json },
      JSON.stringify({ to: 'bob', content: 'hi' }),
    );
    expect(scripted.status, scripted.body).toBe(200);
  });

  it('answers bad input in one line each and keeps serving', async () => {
    const { ui, paths } = await dashboard();
    const headers = { authorization: `Bearer ${ui.token}`, 'content-type': 'application/json' };
    const post = async (action: string, body: string) => {
      const answer = await request(ui.port, 'POST', `/api/${action}`, headers, body);
      return [answer.status, JSON.parse(answer.body).error?.message as string];
    };
    expect(await post('send', '{not json')).toEqual([400, 'the request body is not JSON']);
    expect(await post('send', JSON.stringify({ to: 'mallory', content: 'x' }))).toEqual([
      404,
      'nobody named "mallory" on the team: recipients are lead, alice, bob, user',
    ]);
    expect((await post('send', JSON.stringify({ to: 'alice', content: 'x', extra: 1 })))[0]).toBe(400);
    expect((await post('send', JSON.stringify({ to: 'alice', content: 'x'.repeat(300 * 1024) })))[0]).toBe(413);
    expect(await post('answer', JSON.stringify({ requestId: 'feedbeef', approve: true }))).toEqual([
      409,
      'this request waits no more: it was answered, or its wait ended; the page shows what waits now',
    ]);
    expect(await post('merge', JSON.stringify({ task: 1 }))).toEqual([400, 'task 1 has no worktree (it was added without --worktree)']);
    expect((await request(ui.port, 'GET', '/api/tasks/99', headers)).status).toBe(404);
    expect((await request(ui.port, 'GET', '/api/nothing', headers)).status).toBe(404);
    expect((await request(ui.port, 'GET', '/api/state', headers)).status).toBe(200);
    // A cron.json broken by hand: the jobs are still listed, and the problem named in one line.
    fs.writeFileSync(paths.cronFile, '{broken');
    const schedule = JSON.parse((await request(ui.port, 'GET', '/api/schedule', headers)).body) as { jobs: unknown[]; cron: unknown[]; problems: string[] };
    expect(schedule).toMatchObject({ jobs: [], cron: [] });
    expect(schedule.problems).toHaveLength(1);
    expect(schedule.problems[0]).toMatch(/cron\.json.*not valid JSON/);
  });

  it('approves with the rule "always" adds, and rejects only with a reason, through the signed answer teamd approve sends', async () => {
    const { dir, paths, ui } = await dashboard();
    const ask = bashPermissionAsker(paths, 1);
    const build = ask('alice', 'npm run build');
    const push = ask('bob', 'git push --force');
    const headers = { authorization: `Bearer ${ui.token}`, 'content-type': 'application/json' };
    const state = JSON.parse((await request(ui.port, 'GET', '/api/state', headers)).body);
    expect(state.requests.map((r: { requestId: string; rule: string }) => [r.requestId, r.rule])).toEqual([
      [build.requestId, 'Bash(npm run:*)'],
      [push.requestId, 'Bash(git push:*)'],
    ]);
    const always = await request(ui.port, 'POST', '/api/answer', headers, JSON.stringify({ requestId: build.requestId, approve: true, always: true }));
    expect(JSON.parse(always.body).said).toMatch(/^approved alice's request to run bash [0-9a-f]{8} for task 1; added the rule Bash\(npm run:\*\) to /);
    const bare = await request(ui.port, 'POST', '/api/answer', headers, JSON.stringify({ requestId: push.requestId, approve: false }));
    expect([bare.status, JSON.parse(bare.body).error.message]).toEqual([400, 'say why it is rejected: the teammate reads the reason and tries another way']);
    await request(ui.port, 'POST', '/api/answer', headers, JSON.stringify({ requestId: push.requestId, approve: false, feedback: 'never force-push' }));
    expect(inboxOf(dir, 'alice').map((m) => [m.type, m.requestId, m.approve])).toEqual([['permission_response', build.requestId, true]]);
    expect(inboxOf(dir, 'bob').map((m) => [m.type, m.requestId, m.approve, m.content])).toEqual([
      ['permission_response', push.requestId, false, 'never force-push'],
    ]);
    // Answered: the CLI sees nothing waiting, and a second answer is refused.
    expect(JSON.parse((await runTeamd(['plans', '--json', '--dir', dir])).stdout)).toEqual([]);
    const again = await request(ui.port, 'POST', '/api/answer', headers, JSON.stringify({ requestId: push.requestId, approve: true }));
    expect(again.status).toBe(409);
  });

  it('listens beyond this machine only with a token from the environment; a taken port is named', async () => {
    const dir = path.join(makeTempDir(), '.team');
    writeRoster(dir, ['alice']);
    const open = await runTeamd(['ui', '--host', '0.0.0.0', '--dir', dir]);
    expect(open.code).toBe(2);
    expect(open.stderr).toBe('teamd: the dashboard listens on 0.0.0.0, beyond this machine, only with a token of its own: set TEAMD_UI_TOKEN\n');
    const ui = await startUi(dir);
    const taken = await runTeamd(['ui', '--port', String(ui.port), '--dir', dir]);
    expect(taken.stderr).toBe(`teamd: port ${ui.port} on 127.0.0.1 is taken: choose another (--port)\n`);
    expect((await runTeamd(['ui', '--port', '70000', '--dir', dir])).stderr).toMatch(/expected a port from 0 \(any free one\) to 65535, got "70000"/);
  });

  it('a daemon with the ui setting serves it for its life, with a token of its own no teammate gets; a taken port is reported and teamd ui serves one itself', async () => {
    const dir = path.join(makeTempDir(), '.team');
    const token = 'a-token-of-the-persons-own-choosing-0123456789';
    await startDaemon(dir, { settings: { ui: { port: 0 } }, env: { TEAMD_UI_TOKEN: token } });
    expect((await runTeamd(['spawn', 'alice', 'coder', '--dir', dir])).code).toBe(0);
    const printed = await runTeamd(['ui', '--json', '--dir', dir]);
    expect(printed.code, printed.stderr).toBe(0);
    const { url, servedBy } = JSON.parse(printed.stdout) as { url: string; servedBy: string };
    expect(servedBy).toBe('daemon');
    expect(new URL(url).searchParams.get('token')).toBe(token);
    const port = Number(new URL(url).port);
    const state = await request(port, 'GET', '/api/state', { authorization: `Bearer ${token}` });
    expect(JSON.parse(state.body).members.map((m: { name: string }) => m.name)).toEqual(['alice']);
    const alice = await waitFor(() => member(dir, 'alice')?.pid, "alice's process");
    expect(fs.readFileSync(`/proc/${alice}/environ`, 'utf8')).not.toContain(token);
    expect((await runTeamd(['stop', '--dir', dir])).code).toBe(0);
    await expect(request(port, 'GET', '/api/state', { authorization: `Bearer ${token}` })).rejects.toThrow(/ECONNREFUSED/);

    // Its port taken by another: the daemon runs its team all the same, and teamd ui says why and serves one itself.
    const other = path.join(makeTempDir(), '.team');
    writeRoster(other, ['bob']);
    const blocker = await startUi(other);
    const busy = path.join(makeTempDir(), '.team');
    await startDaemon(busy, { settings: { ui: { port: blocker.port } } });
    const fallback = await startUi(busy);
    expect(fallback.port).not.toBe(blocker.port);
    const log = fs.readFileSync(path.join(busy, 'logs', 'daemon.log'), 'utf8');
    expect(log).toContain(`the dashboard did not start: port ${blocker.port} on 127.0.0.1 is taken: choose another (--port)`);
  });
});
