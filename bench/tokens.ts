import { permitAll } from './team-settings.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Board } from '../src/store/files/board.js';
import { FileLocker } from '../src/fs/file-lock.js';
import { createLogger } from '../src/log/logger.js';
import { OfflineModelServer } from '../src/model/offline/server.js';
import { OfflineScript } from '../src/model/offline/script.js';
import { firstRewrite, PromptCache, withEveryBreakpoint } from '../src/model/offline/prompt-cache.js';
import { type RawRequest } from '../src/model/offline/request-rules.js';
import { statePaths } from '../src/paths.js';
import { readConfig } from '../src/roster/roster.js';
import { type TokenUsage } from '../src/contracts/roster.js';
import { table } from './stats.js';

const TEAMD = fileURLToPath(new URL('../../bin/teamd', import.meta.url));
const MODEL = 'claude-sonnet-5-5';
/** List prices per million tokens (Sonnet): input, cache write (5 min), cache read, output. */
const PRICE = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };
const IDLE_WINDOW_MS = 3_000;

interface Run {
  readonly name: string;
  readonly tasks: readonly string[];
  /** How many teammates share the board (one by default). */
  readonly teammates?: number;
  /** What the run must show (the goals). */
  readonly goal: { minCacheRead?: number; completes: true };
}

const calls = (n: number, command: (i: number) => string) =>
  `\`\`\`teamd-calls\n${JSON.stringify(Array.from({ length: n }, (_, i) => ({ name: 'bash', input: { command: command(i) } })))}\n\`\`\``;

const RUNS: readonly Run[] = [
  { name: '40 calls, small outputs', tasks: [calls(40, (i) => `echo step ${i}`)], goal: { minCacheRead: 0.8, completes: true } },
  {
    name: '60 calls, 4k-token outputs (overflows 200k)',
    tasks: [calls(60, (i) => `head -c 16000 /dev/zero | tr '\\\\0' ${'abcdefghij'[i % 10]}`)],
    goal: { completes: true },
  },
  {
    name: '10 tasks, 3 commands each',
    tasks: Array.from({ length: 10 }, (_, t) => `\`\`\`sh\necho task ${t} > t${t}.txt\nwc -c t${t}.txt\nls\n\`\`\``),
    goal: { minCacheRead: 0.8, completes: true },
  },
  {
    // Issue 47: a team's input read from cache over ten tasks per teammate, beside the best possible.
    name: 'team of 3, 10 tasks each',
    teammates: 3,
    tasks: Array.from({ length: 30 }, (_, t) => `\`\`\`sh\necho task ${t} > t${t}.txt\nwc -c t${t}.txt\nls\n\`\`\``),
    goal: { minCacheRead: 0.93, completes: true },
  },
];

/**
 * `npm run bench -- tokens`: scripted multi-turn work through the strict stand-in serving as
 * the API (a real model id, ANTHROPIC_BASE_URL), which bills caching by the documented rules.
 * Per run: model calls, input tokens, cache read and write shares, the cost at list prices, the
 * calls made while the teammates sat idle afterwards; beside the cache read share, the best
 * possible one (the same requests billed with a breakpoint on every message) and how many
 * requests rewrote a teammate's cached prefix outside a compaction.
 */
export async function benchTokens(): Promise<void> {
  process.stdout.write(
    `\ntoken bench: one teammate (or three, where the run says), model ${MODEL} on the offline stand-in; prices $/MTok ${JSON.stringify(PRICE)}\n`,
  );
  const rows: string[][] = [];
  let failures = 0;
  for (const run of RUNS) {
    const r = await measure(run);
    const input = r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens;
    const readShare = input ? r.usage.cacheReadTokens / input : 0;
    const cost =
      (r.usage.inputTokens * PRICE.input +
        r.usage.cacheWriteTokens * PRICE.cacheWrite +
        r.usage.cacheReadTokens * PRICE.cacheRead +
        r.usage.outputTokens * PRICE.output) /
      1e6;
    const ok =
      r.completed === run.tasks.length &&
      r.idleCalls === 0 &&
      (r.compactions > 0 || r.rewrites === 0) &&
      (run.goal.minCacheRead === undefined || readShare >= run.goal.minCacheRead);
    if (!ok) failures++;
    rows.push([
      run.name,
      `${r.completed}/${run.tasks.length}`,
      String(r.calls),
      String(input),
      `${(100 * readShare).toFixed(1)}%`,
      `${(100 * r.bestReadShare).toFixed(1)}%`,
      String(r.rewrites),
      `${(100 * (input ? r.usage.cacheWriteTokens / input : 0)).toFixed(1)}%`,
      `$${cost.toFixed(3)}`,
      String(r.compactions),
      String(r.idleCalls),
      ok ? 'ok' : 'FAIL',
    ]);
  }
  process.stdout.write(
    `${table(['run', 'done', 'calls', 'input tokens', 'cache read', 'best possible', 'rewrites', 'cache write', 'cost', 'compactions', 'idle calls', 'goal'], rows)}\n`,
  );
  if (failures > 0) process.exitCode = 1;
}

interface Measured {
  readonly completed: number;
  readonly calls: number;
  readonly idleCalls: number;
  readonly usage: TokenUsage;
  readonly compactions: number;
  /** The cache read share of the same requests with a breakpoint on every message. */
  readonly bestReadShare: number;
  /** Requests that changed a block their teammate's previous request had cached, outside a compaction. */
  readonly rewrites: number;
}

async function measure(run: Run): Promise<Measured> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-tokens-'));
  const scriptFile = path.join(scratch, 'api-script.json');
  fs.writeFileSync(scriptFile, '{}');
  let calls = 0;
  const requests: { teammate: string; request: RawRequest }[] = [];
  const api = await OfflineModelServer.listen({
    script: new OfflineScript(scriptFile),
    logger: createLogger(),
    key: 'sk-bench-key',
    onRequest: (teammate, request) => {
      calls++;
      requests.push({ teammate, request: structuredClone(request) });
    },
  });
  const root = path.join(scratch, '.team');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'config.json'), JSON.stringify({ members: [], settings: { idleTimeoutMs: 0 } }));
  const paths = statePaths(root);
  const logger = createLogger();
  const board = new Board({ paths, locker: new FileLocker({ logger }), logger });
  for (const [i, description] of run.tasks.entries()) await board.add({ subject: `${run.name} #${i + 1}`, description });
  const env = { ...process.env, ANTHROPIC_API_KEY: api.key, ANTHROPIC_BASE_URL: api.url };
  permitAll(root);
  execFileSync(process.execPath, [TEAMD, 'start', '--dir', root], { env });
  try {
    const names = Array.from({ length: run.teammates ?? 1 }, (_, i) => (i === 0 ? 'mate' : `mate${i + 1}`));
    for (const name of names) execFileSync(process.execPath, [TEAMD, 'spawn', name, 'bench', '--model', MODEL, '--dir', root], { env });
    const deadline = Date.now() + 300_000;
    const settled = () => board.list().tasks.every((t) => t.status === 'completed' || t.status === 'failed');
    while (!settled() && Date.now() < deadline) await delay(50);
    await delay(200);
    const before = calls;
    await delay(IDLE_WINDOW_MS);
    const idleCalls = calls - before;
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    for (const member of readConfig(paths.config).members.filter((m) => names.includes(m.name)))
      for (const key of Object.keys(usage) as (keyof TokenUsage)[]) usage[key] += member.usage?.[key] ?? 0;
    const compactions = names.reduce((sum, name) => sum + (fs.readFileSync(paths.logFile(name), 'utf8').match(/conversation compacted/g) ?? []).length, 0);
    return { completed: board.list({ status: 'completed' }).tasks.length, calls: before, idleCalls, usage, compactions, ...cacheShape(requests) };
  } finally {
    execFileSync(process.execPath, [TEAMD, 'stop', '--dir', root], { env });
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The best possible cache read share of these requests, and how many rewrote their teammate's cached prefix outside a compaction. */
function cacheShape(requests: readonly { teammate: string; request: RawRequest }[]): { bestReadShare: number; rewrites: number } {
  const best = new PromptCache({ minCacheableTokens: 1024 });
  let read = 0;
  let input = 0;
  let rewrites = 0;
  const previous = new Map<string, RawRequest>();
  for (const { teammate, request } of requests) {
    const bill = best.bill(withEveryBreakpoint(request));
    read += bill.cache_read_input_tokens;
    input += bill.input_tokens + bill.cache_read_input_tokens + bill.cache_creation_input_tokens;
    // A compaction is the one planned cache write: a summary request starts the comparison afresh.
    if (isSummaryRequest(request)) {
      previous.delete(teammate);
      continue;
    }
    const before = previous.get(teammate);
    if (before && firstRewrite(before, request) !== null) rewrites++;
    previous.set(teammate, request);
  }
  return { bestReadShare: input ? read / input : 0, rewrites };
}

function texts(message: RawRequest['messages'][number] | undefined): string[] {
  if (!message) return [];
  if (typeof message.content === 'string') return [message.content];
  return message.content.flatMap((b) => (typeof b.text === 'string' ? [b.text] : []));
}

const isSummaryRequest = (request: RawRequest) => texts(request.messages.at(-1)).some((t) => t.startsWith('[teamd:summarize'));
