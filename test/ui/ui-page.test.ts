import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInboxFrom } from '../../src/store/files/inbox-file.js';
import { openBoard } from '../helpers/board.js';
import { calls } from '../helpers/corpus.js';
import { launchBrowser, missingBrowser, screenshotPath } from '../helpers/browser.js';
import { member, startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { beforeThisTestsFoldersGo, makeTempDir } from '../helpers/temp-dir.js';
import { startUi } from '../helpers/ui.js';
import { waitFor } from '../helpers/wait.js';

const missing = missingBrowser();
const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], { cwd, encoding: 'utf8' });

/** A git workspace with alice on a running team under `settings`. */
async function team(settings: unknown) {
  const ws = makeTempDir('teamd-ui-');
  git(ws, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(ws, 'shared.txt'), 'base\n');
  git(ws, 'add', 'shared.txt');
  git(ws, 'commit', '-q', '-m', 'base');
  const dir = path.join(ws, '.team');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  await startDaemon(dir, { settings: { idleTimeoutMs: 0 } });
  const spawned = await runTeamd(['spawn', 'alice', 'coder', '--dir', dir]);
  expect(spawned.code, spawned.stderr).toBe(0);
  const { board } = openBoard(dir);
  const add = async (...args: string[]) => {
    const added = await runTeamd(['task', 'add', ...args, '--dir', dir, '--json']);
    expect(added.code, added.stderr).toBe(0);
    return (JSON.parse(added.stdout) as { id: number }).id;
  };
  const finished = (id: number) =>
    waitFor(() => (['completed', 'failed'].includes(board.get(id).status) ? board.get(id) : undefined), `task ${id} finished`, 60_000);
  return { ws, dir, add, finished, ui: await startUi(dir) };
}

const inboxOf = (dir: string, name: string) => readInboxFrom(path.join(dir, 'inbox', `${name}.jsonl`), 0).messages.map(({ message }) => message);

/** The card of a task in the column it is shown in, found without reloading the page. */
const cardIn = (page: Page, column: string, id: number) => page.locator(`[data-column="${column}"] [data-task="${id}"]`);

describe.skipIf(missing !== null)('teamd ui in a real Chromium (a running team, the offline model)', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const open = async (url: string, size = { width: 1280, height: 800 }) => {
    const context = await browser.newContext({ viewport: size });
    beforeThisTestsFoldersGo(() => context.close());
    const page = await context.newPage();
    await page.goto(url);
    return page;
  };

  it('moves a card as its task runs, shows a permission request live, and answers it from the page: approve runs the command, reject sends the reason', async () => {
    const { ws, dir, add, finished, ui } = await team({ permissions: { ask: ['Bash(touch:*)'], defaultMode: 'bypassPermissions', askTimeoutSeconds: 300 } });
    const page = await open(ui.url);
    await page.locator('body[data-loaded="true"]').waitFor();
    // The token left the address bar at once.
    expect(page.url()).toBe(`${ui.origin}/`);

    const first = await add('make a file', '--description', sh('touch asked.txt'));
    const request = page.locator('.request', { hasText: 'touch asked.txt' });
    await request.waitFor();
    await cardIn(page, 'in_progress', first).waitFor();
    expect(await request.textContent()).toContain('alice asks to run bash');
    await page.screenshot({ path: screenshotPath('ui-request-1280') });
    expect(fs.existsSync(path.join(ws, 'asked.txt'))).toBe(false);
    await request.getByRole('button', { name: 'Approve' }).click();
    expect((await finished(first)).status).toBe('completed');
    expect(fs.existsSync(path.join(ws, 'asked.txt'))).toBe(true);
    await cardIn(page, 'completed', first).waitFor();
    await request.waitFor({ state: 'detached' });

    const second = await add('make another', '--description', sh('touch refused.txt'));
    const next = page.locator('.request', { hasText: 'touch refused.txt' });
    await next.getByRole('button', { name: 'Reject' }).click();
    await next.getByRole('textbox').fill('not in this repository');
    await next.getByRole('textbox').press('Enter');
    await finished(second);
    const answer = inboxOf(dir, 'alice').find((m) => m.type === 'permission_response' && m.approve === false);
    expect(answer?.content).toBe('not in this repository');
    expect(fs.existsSync(path.join(ws, 'refused.txt'))).toBe(false);
    await next.waitFor({ state: 'detached' });
    await page.locator('#status', { hasText: '2 tasks' }).waitFor();

    // A background job and a cron job, listed on the Team view.
    const third = await add('build in the background', '--description', calls([{ name: 'bash', input: { command: 'echo built', run_in_background: true } }]));
    expect((await finished(third)).status).toBe('completed');
    const cron = await runTeamd(['cron', 'add', '--in', '1h', 'check the build', '--to', 'alice', '--dir', dir]);
    expect(cron.code, cron.stderr).toBe(0);

    // The team, a task's page and the chat, with a message sent from its box.
    await page.getByRole('link', { name: 'Team' }).click();
    await page.locator('[data-member="alice"]').waitFor();
    expect(await page.locator('[data-job="alice-1"]').textContent()).toContain('echo built');
    expect(await page.locator('[data-cron="c1"]').textContent()).toContain('check the build');
    expect(member(dir, 'alice')?.status).toBe('idle');
    await page.screenshot({ path: screenshotPath('ui-team-1280') });
    await page.goto(`${ui.origin}/#task/${first}`);
    await page.locator('#task h2', { hasText: 'make a file' }).waitFor();
    // The conversation from alice's session file: the model's call, its result; and the task's log lines.
    const turns = (await page.locator('#task .timeline.turns').textContent()) ?? '';
    expect(turns).toContain(`teamd[teamd:task id=${first}]`);
    expect(turns).toMatch(/calls bash\{"command":"touch asked.txt"/);
    expect(turns).toContain('result of bash');
    expect(await page.locator('#task .timeline:not(.turns)').textContent()).toContain('touch asked.txt');
    await page.screenshot({ path: screenshotPath('ui-task-1280') });
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByLabel('To').selectOption('alice');
    await page.getByRole('textbox', { name: 'Message' }).fill('thanks, <b>alice</b>');
    await page.getByRole('button', { name: 'Send' }).click();
    await waitFor(() => inboxOf(dir, 'alice').find((m) => m.type === 'message' && m.content === 'thanks, <b>alice</b>'), 'the message in alice inbox');
    // Shown as text: markup a teammate (or the person) writes is never parsed.
    // Exactly the message sent (alice's reply quotes it).
    await page.locator('#chat .content', { hasText: /^thanks, <b>alice<\/b>$/ }).waitFor();
    expect(await page.locator('#chat b').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('ui-messages-1280') });
    await page.getByRole('link', { name: 'Board' }).click();
    await page.screenshot({ path: screenshotPath('ui-board-1280') });
    const phone = await open(`${ui.origin}/?token=${ui.token}`, { width: 390, height: 844 });
    await phone.locator('body[data-loaded="true"]').waitFor();
    await phone.screenshot({ path: screenshotPath('ui-board-390'), fullPage: true });
  });

  it("shows a task's diff and merges it with the button, the card moving from needs-merge to completed", async () => {
    const { ws, add, finished, ui } = await team({ permissions: { defaultMode: 'bypassPermissions' } });
    const id = await add('change shared', '--worktree', '--description', sh('echo changed-by-alice > shared.txt'));
    expect((await finished(id)).status).toBe('completed');
    const page = await open(ui.url);
    await cardIn(page, 'needs-merge', id).waitFor();
    await cardIn(page, 'needs-merge', id).click();
    await page.locator('#task .diff', { hasText: '+changed-by-alice' }).waitFor();
    await page.screenshot({ path: screenshotPath('ui-diff-1280') });
    await page.getByRole('button', { name: /^Merge teamd\// }).click();
    // The page says what the merge did (or why it did not), once the server has answered.
    expect(await page.locator('#notice', { hasText: /./ }).textContent()).toMatch(/^merged teamd\/.* into /);
    expect(fs.readFileSync(path.join(ws, 'shared.txt'), 'utf8')).toBe('changed-by-alice\n');
    await page.getByRole('link', { name: '← Board' }).click();
    await cardIn(page, 'completed', id).waitFor();
    expect(await cardIn(page, 'needs-merge', id).count()).toBe(0);
  });

  it('with a wrong token shows nothing of the team; a page of another site cannot send through it, even in a browser that holds the cookie', async () => {
    const { dir, add, ui } = await team({ permissions: { defaultMode: 'bypassPermissions' } });
    await add('the secret plan');
    const stranger = await open(`${ui.origin}/?token=not-the-token`);
    const shown = await stranger.locator('body').textContent();
    expect(shown).toMatch(/no valid token/);
    expect(shown).not.toMatch(/secret plan|alice/);
    // The person's own browser, signed in; then it visits a hostile site, which tries a form and a fetch.
    const page = await open(ui.url);
    await page.locator('body[data-loaded="true"]').waitFor();
    const target = `${ui.origin}/api/send`;
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><body>
        <form id="f" method="POST" action="${target}" enctype="text/plain"><input name='{"to":"alice","content":"from the form","x":"' value='"}'></form>
        <script>
          fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: 'alice', content: 'from fetch' }) })
            .catch(() => 'refused').then(() => { document.title = 'fetched'; document.getElementById('f').submit(); });
        </script></body>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    beforeThisTestsFoldersGo(() => new Promise((resolve) => evil.close(() => resolve())));
    const hostile = await page.context().newPage();
    await hostile.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
    await hostile.waitForURL(target);
    expect(await hostile.locator('body').textContent()).toMatch(/refused|no valid token/);
    expect(inboxOf(dir, 'alice').filter((m) => m.type === 'message')).toEqual([]);
  });
});
