import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS } from './chromium.js';
import { chromium } from 'playwright-core';
import { createLogger } from '../src/log/logger.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { Board } from '../src/store/files/board.js';
import { Mailbox } from '../src/store/files/mailbox.js';
import { freshState, seedBoard } from './scale.js';
import { formatMs, percentile, table } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const TASKS = Number(process.env.BENCH_UI_TASKS ?? 10_000);
const TEAMMATES = Number(process.env.BENCH_UI_TEAMMATES ?? 100);
const LOADS = Number(process.env.BENCH_UI_LOADS ?? 7);
const CHANGES = Number(process.env.BENCH_UI_CHANGES ?? 20);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * `npm run bench -- ui`: the dashboard over a big team, in Debian's Chromium. A board of TASKS
 * tasks (1,000 pending behind one in progress, the rest completed) and TEAMMATES members; the
 * page loaded LOADS times (from navigation to the whole board drawn: performance.mark in
 * app.js), then CHANGES task changes, each from the write to its card in its new column (a
 * MutationObserver's wall-clock time in the page). Issue 50's budget: the board in under 1 s.
 */
export async function benchUi(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) {
    process.stdout.write(`ui: SKIPPED, no Chromium at ${CHROMIUM} (apt-get install -y chromium)\n`);
    return;
  }
  const paths = freshState();
  seedBoard(paths, TASKS, 1_000);
  const members = Array.from({ length: TEAMMATES }, (_, i) => ({ name: `t${i}`, role: 'bench', status: 'asleep' }));
  fs.writeFileSync(paths.config, JSON.stringify({ members, settings: { idleTimeoutMs: 0 } }));
  const ui = spawn(process.execPath, [TEAMD, 'ui', '--json', '--dir', paths.root], { stdio: ['ignore', 'pipe', 'inherit'] });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      ui.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('}')) resolve((JSON.parse(out) as { url: string }).url);
      });
      ui.once('close', (code) => reject(new Error(`teamd ui exited ${code}`)));
    });
    const origin = new URL(url).origin;
    const token = new URL(url).searchParams.get('token')!;
    const state: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const started = performance.now();
      const answer = await fetch(`${origin}/api/state`, { headers: { authorization: `Bearer ${token}` } });
      await answer.arrayBuffer();
      state.push(performance.now() - started);
    }
    const stateBytes = (await (await fetch(`${origin}/api/state`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer()).byteLength;

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(url);
    const loads: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      await page.reload();
      await page.locator('body[data-loaded="true"]').waitFor();
      loads.push(await page.evaluate('performance.getEntriesByName("teamd-board-drawn")[0].startTime'));
    }
    const nodes = await page.evaluate('document.getElementsByTagName("*").length');
    const heap = await page.evaluate('performance.memory ? performance.memory.usedJSHeapSize : 0');

    // Live changes: a task added, then claimed and completed; its card's arrival in each column is timed in the page.
    const board = new Board({ paths, locker: new FileLocker({ logger: createLogger() }), logger: createLogger() });
    await page.evaluate(`window.__seen = {}; new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n.dataset && n.dataset.task) window.__seen[n.dataset.task + '@' + n.closest('[data-column]').dataset.column] ??= performance.timeOrigin + performance.now();
    }).observe(document.getElementById('board'), { childList: true, subtree: true });
    new MutationObserver(() => { window.__seen[document.getElementById('status').textContent.match(/(\\d+) tasks/)[1] + ' tasks'] ??= performance.timeOrigin + performance.now(); })
      .observe(document.getElementById('status'), { childList: true, characterData: true, subtree: true })`);
    // Functions, not strings: the page's policy forbids eval, and Playwright would eval a string predicate.
    const seen = async (key: string): Promise<number> => {
      const found = await page.waitForFunction((wanted) => (globalThis as unknown as { __seen: Record<string, number> }).__seen[wanted], key);
      return (await found.jsonValue()) as number;
    };
    const added: number[] = [];
    const changes: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const before = Date.now();
      // Its card is past the pending column's window (the column is in id order): the board's count shows it.
      const task = await board.add({ subject: `bench change ${i}` });
      added.push((await seen(`${task.id} tasks`)) - before);
      const written = Date.now();
      const claimed = await board.claim(task.id, 'bench');
      await board.complete(task.id, { owner: 'bench', claim: claimed.claim });
      changes.push((await seen(`${task.id}@completed`)) - written);
    }
    // A permission request, as a teammate's gate sends one: its arrival at the top of the page is timed in the page.
    await page.evaluate(`new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n.dataset && n.dataset.request) window.__seen['request ' + n.dataset.request] ??= performance.timeOrigin + performance.now();
    }).observe(document.getElementById('requests'), { childList: true, subtree: true })`);
    const mailbox = new Mailbox({ paths, logger: createLogger() });
    const asked: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const task = await board.add({ subject: `bench request ${i}` });
      await board.claim(task.id, 't0');
      const before = Date.now();
      const request = mailbox.send({
        from: 't0',
        to: 'lead',
        type: 'permission_request',
        content: `t0 asks to run bash: make ${i}`,
        extra: { tool: 'bash', input: { command: `make ${i}` }, taskId: task.id },
      });
      asked.push((await seen(`request ${request.requestId ?? request.id}`)) - before);
    }
    const weights = ['index.html', 'app.js', 'app.css'].map((file) => fs.readFileSync(path.join(path.dirname(TEAMD), '..', 'dist', 'bundle', 'ui', file)));
    const bytes = weights.reduce((sum, b) => sum + b.length, 0);
    const gzipped = weights.reduce((sum, b) => sum + zlib.gzipSync(b).length, 0);
    const fmt = (samples: readonly number[]) => `p50 ${formatMs(percentile(samples, 50))} ms, max ${formatMs(Math.max(...samples))} ms`;
    process.stdout.write(
      `ui: ${os.cpus().length} cores, ${TEAMMATES} teammates, ${TASKS} tasks (files store), Chromium ${browser.version()}\n${table(
        ['figure', 'measured'],
        [
          [`GET /api/state (the whole board), ${LOADS} times`, `${fmt(state)}; ${(stateBytes / 1024).toFixed(0)} KiB`],
          [`page load to the whole board drawn, ${LOADS} loads (budget < 1 s)`, fmt(loads)],
          ['elements in the page with the board drawn (virtualised columns)', String(nodes)],
          ["the page's JS heap", `${(Number(heap) / 1024 / 1024).toFixed(1)} MiB`],
          [`a task added -> the board counts it, ${CHANGES} one at a time`, fmt(added)],
          [`a task claimed and completed -> its card in Completed, ${CHANGES} one at a time`, fmt(changes)],
          [`a permission request sent -> shown at the top of the page, ${CHANGES} one at a time (budget < 1 s)`, fmt(asked)],
          ['page weight (index.html + app.js + app.css)', `${(bytes / 1024).toFixed(1)} KiB, ${(gzipped / 1024).toFixed(1)} KiB gzipped`],
        ],
      )}\n`,
    );
  } finally {
    await browser.close();
    ui.kill('SIGTERM');
    fs.rmSync(path.dirname(paths.root), { recursive: true, force: true });
  }
}
