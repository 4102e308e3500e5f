import { permitAll } from '../team-settings.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Board } from '../../src/store/files/board.js';
import { readLiveDaemon } from '../../src/proc/pid-file.js';
import { FileLocker } from '../../src/fs/file-lock.js';
import { Mailbox } from '../../src/store/files/mailbox.js';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { readConfig } from '../../src/roster/roster.js';
import { claimsByTask, halfWrittenFiles, handledIds, leftoverProcesses, members, sentTo, type Verdict } from './checks.js';
import { FAULTS, type FaultContext } from './faults.js';

const TEAMD = fileURLToPath(new URL('../../../bin/teamd', import.meta.url));
const TEAM_SIZE = 4;
const SETTLE_MS = 120_000;

function parseMinutes(argv: readonly string[]): number {
  const at = argv.indexOf('--minutes');
  const value = at === -1 ? 2 : Number(argv[at + 1]);
  if (!Number.isFinite(value) || value <= 0 || value > 24 * 60) {
    process.stderr.write('usage: npm run chaos -- --minutes N   (N > 0; default 2)\n');
    process.exit(2);
  }
  return value;
}

function teamd(args: string[]): string {
  return execFileSync(process.execPath, [TEAMD, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function until(probe: () => boolean, deadlineMs: number): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (!probe()) {
    if (Date.now() > deadline) return false;
    await delay(100);
  }
  return true;
}

const sh = (...lines: string[]): string => `\`\`\`sh\n${lines.join('\n')}\n\`\`\``;

/** `--adversary`: the prompt-injected team (adversary.ts); exits 1 when any attempt succeeded. */
async function adversary(): Promise<void> {
  const { runAdversary } = await import('./adversary.js');
  const results = await runAdversary({ log: (line) => process.stdout.write(`${line}\n`) });
  for (const result of results) process.stdout.write(`${result.outcome.padEnd(9)} ${result.id}: ${result.what} (${result.detail})\n`);
  const succeeded = results.filter((result) => result.outcome === 'SUCCEEDED');
  process.stdout.write(`adversary: ${results.length} attempts, ${succeeded.length} succeeded\n`);
  if (succeeded.length > 0) process.exitCode = 1;
}

const USAGE = `usage: node dist/bench/chaos/index.js [--minutes N] [--adversary]
  --minutes N   run the fault injection for N minutes (default 2), then check every invariant
  --adversary   run the prompt-injected team instead; exit 1 when any attempt succeeded
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const unknown = process.argv.slice(2).filter((arg, i, all) => !['--minutes', '--adversary'].includes(arg) && all[i - 1] !== '--minutes');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument(s): ${unknown.join(' ')}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (process.argv.includes('--adversary')) return adversary();
  const minutes = parseMinutes(process.argv.slice(2));
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-chaos-'));
  const root = path.join(ws, '.team');
  const paths = statePaths(root);
  fs.mkdirSync(root, { mode: 0o700 });
  fs.writeFileSync(paths.config, JSON.stringify({ members: [], settings: { idleTimeoutMs: 0, sandbox: 'preferred', ipcGraceMs: 2_000, termGraceMs: 2_000 } }));
  fs.mkdirSync(path.join(ws, 'runs'));
  const logger = createLogger();
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  const mailbox = new Mailbox({ paths, logger });
  // Ctrl-C, or a SIGTERM (a CI job cancelled), stops the team before the harness ends.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.once(signal, () => {
      try {
        teamd(['stop', '--dir', root]);
      } finally {
        process.exit(code);
      }
    });
  try {
    permitAll(root);
    teamd(['start', '--dir', root]);
    for (let i = 0; i < TEAM_SIZE; i++) teamd(['spawn', `mate-${i}`, 'chaos', '--dir', root]);

    const faultCounts = new Map<string, number>();
    const damaged = new Map<string, string>();
    const locked = new Set<number>();
    const ctx: FaultContext = {
      paths,
      daemonPid: () => readLiveDaemon(paths)?.pid ?? null,
      restartDaemon: async () => {
        await until(() => readLiveDaemon(paths) === null, 5_000);
        permitAll(root);
        teamd(['start', '--dir', root]);
      },
      pick: (items) => items[Math.floor(Math.random() * items.length)],
      sleep: (ms) => delay(ms),
      damaged,
      locked,
    };
    const deadline = Date.now() + minutes * 60_000;
    const created: number[] = [];
    let messages = 0;
    process.stdout.write(`chaos: ${minutes} min, ${TEAM_SIZE} teammates, state ${root}\n`);
    while (Date.now() < deadline) {
      // Work keeps arriving: a few tasks (some depending on earlier ones) and messages to random teammates.
      for (let i = 0; i < 3; i++) {
        const blocker = created.length > 0 && Math.random() < 0.3 ? ctx.pick(created) : undefined;
        const serial = created.length + 1;
        const task = await board.add({
          subject: 'chaos task',
          description: sh(`echo run >> runs/$(date +%s%N).t${serial}`, `sleep 0.${Math.floor(Math.random() * 5)}`),
          blockedBy: blocker === undefined ? [] : [blocker],
        });
        created.push(task.id);
      }
      const to = ctx.pick(members(paths));
      if (to) {
        mailbox.send({ from: 'lead', to, content: `chaos message ${messages++}` });
      }
      const fault = ctx.pick(FAULTS)!;
      try {
        const what = await fault.apply(ctx);
        if (what !== null) faultCounts.set(fault.kind, (faultCounts.get(fault.kind) ?? 0) + 1);
      } catch (error) {
        process.stderr.write(`fault ${fault.kind} could not be applied: ${(error as Error).message}\n`);
      }
      if (!readLiveDaemon(paths)) await ctx.restartDaemon();
      await delay(500 + Math.random() * 1_500);
    }

    process.stdout.write('chaos: faults stopped; waiting for the team to settle\n');
    permitAll(root);
    if (!readLiveDaemon(paths)) teamd(['start', '--dir', root]);
    // A teammate that crashed too often in a row is errored by design: give it another life, as a person would.
    for (const member of readConfig(paths.config).members.filter((m) => m.status === 'errored')) {
      try {
        teamd(['spawn', member.name, 'chaos', '--dir', root]);
      } catch {
        // reported by the checks below
      }
    }
    const settled = await until(() => {
      const listed = board.list();
      const open = listed.tasks.filter((t) => t.status !== 'completed');
      const undelivered = members(paths).some((name) => {
        try {
          const { ids } = handledIds(paths, name);
          return sentTo(paths, name).some((id) => !ids.has(id));
        } catch {
          return true;
        }
      });
      return open.length === 0 && !undelivered;
    }, SETTLE_MS);
    teamd(['stop', '--dir', root]);

    const listing = board.list();
    const doubles = [...claimsByTask(paths)].filter(([, owners]) => owners.size > 1);
    let sent = 0;
    let undelivered = 0;
    let duplicates = 0;
    for (const name of members(paths)) {
      const ids = sentTo(paths, name);
      const handled = handledIds(paths, name);
      sent += ids.length;
      undelivered += ids.filter((id) => !handled.ids.has(id)).length;
      duplicates += handled.duplicates;
    }
    const runs = fs.readdirSync(path.join(ws, 'runs')).map((name) => name.split('.t')[1]);
    const runsPerTask = new Map<string, number>();
    for (const id of runs) runsPerTask.set(id!, (runsPerTask.get(id!) ?? 0) + 1);
    const stranded = listing.tasks.filter((t) => t.status !== 'completed');
    const damagedIds = new Set([...damaged.keys()].map((file) => Number(/task_(\d+)\.json$/.exec(file)?.[1])));
    const lockedValid = [...locked].filter((id) => !damagedIds.has(id));
    const lockedDone = lockedValid.filter((id) => listing.tasks.find((t) => t.id === id)?.status === 'completed');
    const locks = fs.readdirSync(paths.tasksDir).filter((name) => name.endsWith('.lock'));
    const orphans = leftoverProcesses(root);
    const halfWritten = halfWrittenFiles(paths);
    const untouched = [...damaged].filter(([file, bytes]) => fs.readFileSync(file, 'utf8') === bytes).length;

    const verdicts: Verdict[] = [
      {
        invariant: '1. a task owned by at most one teammate at a time',
        figure: `${claimsByTask(paths).size} claims, ${doubles.length} claimed twice`,
        ok: doubles.length === 0,
      },
      {
        invariant: '2. every message delivered, none twice, none torn',
        figure: `${sent} sent, ${undelivered} undelivered, ${duplicates} duplicated`,
        ok: undelivered === 0 && duplicates === 0,
      },
      {
        invariant: '3. no stranded task',
        figure: `${listing.tasks.length} tasks, ${listing.tasks.length - stranded.length} completed, ${stranded.length} not (settled: ${settled})`,
        ok: stranded.length === 0,
      },
      {
        invariant: "4. dead holders' locks recovered",
        figure: `${lockedValid.length} valid tasks given a dead holder's lock, ${lockedDone.length} completed; ${locks.length} lock folders left (on damaged tasks nobody writes)`,
        ok: lockedDone.length === lockedValid.length,
      },
      {
        invariant: '5. stop leaves no process, no half-written file',
        figure: `${orphans.length} processes, ${halfWritten.length} temp files`,
        ok: orphans.length === 0 && halfWritten.length === 0,
      },
      {
        invariant: '6. damaged files skipped, never changed',
        figure: `${damaged.size} damaged, ${untouched} untouched, ${listing.problems.length} reported`,
        ok: untouched === damaged.size,
      },
    ];
    const reruns = [...runsPerTask.values()].filter((n) => n > 1).length;
    process.stdout.write(`\nfaults injected (${[...faultCounts.values()].reduce((a, b) => a + b, 0)}):\n`);
    for (const [kind, count] of [...faultCounts].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${String(count).padStart(4)}  ${kind}\n`);
    process.stdout.write(`\ntasks whose command ran more than once (killed mid-command, at-least-once): ${reruns} of ${runsPerTask.size}\n\n`);
    for (const verdict of verdicts) process.stdout.write(`${verdict.ok ? 'ok  ' : 'FAIL'}  ${verdict.invariant}: ${verdict.figure}\n`);
    const failed = verdicts.filter((v) => !v.ok);
    if (failed.length > 0) {
      process.stdout.write(`\nstate kept for inspection: ${root}\n`);
      process.exitCode = 1;
    } else {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  } catch (error) {
    // The harness itself failed: never leave the team it started running.
    try {
      teamd(['stop', '--dir', root]);
    } catch {
      // already down
    }
    throw error;
  }
}

await main();
