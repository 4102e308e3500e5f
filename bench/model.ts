import { permitAll } from './team-settings.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Board } from '../src/store/files/board.js';
import type { Task } from '../src/contracts/task.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { createLogger } from '../src/log/logger.js';
import type { ScriptStep } from '../src/model/offline/script.js';
import { statePaths, type StatePaths } from '../src/paths.js';
import { readConfig } from '../src/roster/roster.js';
import { type Member } from '../src/contracts/roster.js';
import { table } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const SETTINGS = { modelRetryBaseMs: 1_000, modelRetryMaxMs: 8_000, modelStallMs: 2_000, idleTimeoutMs: 0 };
/** A task left in progress with its owner not working for longer than this fails the bench. */
const STRANDED_LIMIT_MS = 5_000;
const CASE_DEADLINE_MS = 60_000;

type Outcome = 'completed' | 'failed' | 'back on the board' | 'back on the board, teammate errored';

interface Case {
  readonly name: string;
  readonly steps: ScriptStep[];
  readonly description?: string;
  /** What a correct teammate ends with. */
  readonly expect: Outcome;
  /** Something done to the team once the fault is under way. */
  readonly during?: (root: string) => void;
}

const SH = '```sh\necho bench > bench.txt\n```';
const CALLS = '```teamd-calls\n[{"name":"write_file","input":{"path":"a.txt","content":"a"}},{"name":"read_file","input":{"path":"a.txt"}}]\n```';

const CASES: readonly Case[] = [
  { name: 'end_turn, text only (once)', steps: [{ stopReason: 'end_turn', text: 'Later.' }], expect: 'completed' },
  { name: 'end_turn, text only (always)', steps: [{ stopReason: 'end_turn', text: 'Later.', times: 3 }], expect: 'back on the board' },
  { name: 'pause_turn', steps: [{ stopReason: 'pause_turn', text: 'Thinking' }], expect: 'completed' },
  { name: 'refusal', steps: [{ stopReason: 'refusal', text: 'I cannot help with that.' }], expect: 'failed' },
  { name: 'max_tokens mid-text', steps: [{ stopReason: 'max_tokens', text: 'I will now run the comm' }], expect: 'completed' },
  {
    name: 'max_tokens mid-tool_use',
    steps: [{ stopReason: 'max_tokens', truncatedToolUse: { name: 'bash', input: { command: 'touch cut-off' } } }],
    expect: 'completed',
  },
  { name: 'whitespace-only text', steps: [{ stopReason: 'end_turn', text: ' \n\t ' }], expect: 'completed' },
  { name: '400 prompt too long', steps: [{ status: 400, promptTooLong: true }], expect: 'completed' },
  { name: '401 key refused', steps: [{ status: 401 }], expect: 'back on the board, teammate errored' },
  { name: '403 permission', steps: [{ status: 403 }], expect: 'back on the board, teammate errored' },
  { name: '404 unknown model', steps: [{ status: 404 }], expect: 'back on the board, teammate errored' },
  { name: '429 retry-after 1 s, past retries', steps: [{ status: 429, retryAfterSeconds: 1, times: 3 }], expect: 'completed' },
  { name: '429 for 4 s', steps: [{ status: 429, forMs: 4_000 }], expect: 'completed' },
  { name: '529 for 7 s', steps: [{ status: 529, forMs: 7_000 }], expect: 'completed' },
  { name: '500, past retries', steps: [{ status: 500, times: 3 }], expect: 'completed' },
  { name: 'dropped connection, past retries', steps: [{ drop: true, times: 3 }], expect: 'completed' },
  { name: 'stalled stream (2 s watchdog)', steps: [{ stall: true }], expect: 'completed' },
  { name: 'teamd-calls sequence', steps: [], description: CALLS, expect: 'completed' },
  {
    name: 'daemon restart mid-call',
    steps: [{ stall: true, times: 1 }],
    expect: 'completed',
    during: (root) => {
      execFileSync(process.execPath, [TEAMD, 'stop', '--dir', root]);
      fs.writeFileSync(path.join(root, 'offline-script.json'), '{}');
      permitAll(root);
      execFileSync(process.execPath, [TEAMD, 'start', '--dir', root]);
    },
  },
];

interface Result {
  readonly outcome: Outcome | 'timed out';
  /** From the first scripted fault served to the task back on the board or done. */
  readonly toBoardOrDoneMs: number;
  /** From the fault to the case settled (done, or back on the board for good). */
  readonly toSettledMs: number;
  readonly longestStrandedMs: number;
}

/**
 * `npm run bench -- model`: one offline teammate through each way a real model misbehaves,
 * timed from the fault (the first scripted step served) to the task back on the board or done.
 * A task in progress whose owner is not working for more than 5 s fails the bench.
 */
export async function benchModel(): Promise<void> {
  process.stdout.write(`\nmodel behaviour bench: one teammate per case, settings ${JSON.stringify(SETTINGS)}\n`);
  const rows: string[][] = [];
  let failures = 0;
  for (const c of CASES) {
    const result = await runCase(c);
    const ok = result.outcome === c.expect && result.longestStrandedMs <= STRANDED_LIMIT_MS;
    if (!ok) failures++;
    rows.push([
      c.name,
      result.outcome,
      String(Math.round(result.toBoardOrDoneMs)),
      String(Math.round(result.toSettledMs)),
      String(Math.round(result.longestStrandedMs)),
      ok ? 'ok' : `FAIL (expected ${c.expect})`,
    ]);
  }
  process.stdout.write(`${table(['case', 'outcome', 'fault->board/done ms', 'fault->settled ms', 'stranded ms', 'verdict'], rows)}\n`);
  if (failures > 0) {
    process.stdout.write(`${failures} case(s) failed\n`);
    process.exitCode = 1;
  }
}

async function runCase(c: Case): Promise<Result> {
  const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-model-')), '.team');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'config.json'), JSON.stringify({ members: [], settings: SETTINGS }));
  fs.writeFileSync(path.join(root, 'offline-script.json'), JSON.stringify({ mate: c.steps }));
  const paths = statePaths(root);
  const logger = createLogger();
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  await board.add({ subject: c.name, description: c.description ?? SH });
  permitAll(root);
  execFileSync(process.execPath, [TEAMD, 'start', '--dir', root]);
  const started = Date.now();
  try {
    execFileSync(process.execPath, [TEAMD, 'spawn', 'mate', 'bench', '--dir', root]);
    return await observe(c, root, paths, board, started);
  } finally {
    execFileSync(process.execPath, [TEAMD, 'stop', '--dir', root]);
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  }
}

async function observe(c: Case, root: string, paths: StatePaths, board: Board, started: number): Promise<Result> {
  let faultAt: number | null = c.steps.length === 0 ? started : null;
  let backOrDoneAt: number | null = null;
  let strandedSince: number | null = null;
  let longestStranded = 0;
  let disturbed = c.during === undefined;
  const deadline = Date.now() + CASE_DEADLINE_MS;
  while (Date.now() < deadline) {
    const now = Date.now();
    faultAt ??= firstScriptedStep(paths);
    const task = board.get(1);
    const mate = readConfig(paths.config).members.find((m) => m.name === 'mate');
    if (faultAt !== null && !disturbed) {
      disturbed = true;
      c.during!(root);
      continue;
    }
    if (task.status !== 'in_progress' && faultAt !== null) backOrDoneAt ??= now;
    const stranded = task.status === 'in_progress' && !working(mate);
    strandedSince = stranded ? (strandedSince ?? now) : null;
    if (strandedSince !== null) longestStranded = Math.max(longestStranded, now - strandedSince);
    const outcome = settled(task, mate, paths);
    if (outcome && faultAt !== null)
      return { outcome, toBoardOrDoneMs: (backOrDoneAt ?? now) - faultAt, toSettledMs: now - faultAt, longestStrandedMs: longestStranded };
    await delay(20);
  }
  return { outcome: 'timed out', toBoardOrDoneMs: Number.NaN, toSettledMs: Number.NaN, longestStrandedMs: longestStranded };
}

/** Working on it, or about to (just started, waiting for its plan's answer is not a case here). */
function working(mate: Member | undefined): boolean {
  return mate?.status === 'working' || mate?.status === 'starting' || mate?.status === 'crashed';
}

function settled(task: Task, mate: Member | undefined, paths: StatePaths): Outcome | null {
  if (task.status === 'completed' || task.status === 'failed') return task.status;
  if (task.status !== 'pending') return null;
  if (mate?.status === 'errored') return 'back on the board, teammate errored';
  const gaveBack = fs.existsSync(paths.inboxFile('lead')) && fs.readFileSync(paths.inboxFile('lead'), 'utf8').includes('back to the board');
  return gaveBack && mate?.status === 'idle' ? 'back on the board' : null;
}

function firstScriptedStep(paths: StatePaths): number | null {
  let log: string;
  try {
    log = fs.readFileSync(paths.logFile('daemon'), 'utf8');
  } catch {
    return null;
  }
  const line = log.split('\n').find((l) => l.includes('offline model: scripted response'));
  return line ? (JSON.parse(line) as { time: number }).time : null;
}
