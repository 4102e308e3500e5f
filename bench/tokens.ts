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
];

/**
 * `npm run bench -- tokens`: scripted multi-turn work through the strict stand-in serving as
 * the API (a real model id, ANTHROPIC_BASE_URL), which bills caching by the documented rules.
 * Per run: model calls, input tokens, cache read and write shares, the cost at list prices, and
 * the calls made while the teammate sat idle afterwards.
 */
export async function benchTokens(): Promise<void> {
  process.stdout.write(`\ntoken bench: one teammate, model ${MODEL} on the offline stand-in; prices $/MTok ${JSON.stringify(PRICE)}\n`);
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
    const ok = r.completed === run.tasks.length && r.idleCalls === 0 && (run.goal.minCacheRead === undefined || readShare >= run.goal.minCacheRead);
    if (!ok) failures++;
    rows.push([
      run.name,
      `${r.completed}/${run.tasks.length}`,
      String(r.calls),
      String(input),
      `${(100 * readShare).toFixed(1)}%`,
      `${(100 * (input ? r.usage.cacheWriteTokens / input : 0)).toFixed(1)}%`,
      `$${cost.toFixed(3)}`,
      String(r.compactions),
      String(r.idleCalls),
      ok ? 'ok' : 'FAIL',
    ]);
  }
  process.stdout.write(`${table(['run', 'done', 'calls', 'input tokens', 'cache read', 'cache write', 'cost', 'compactions', 'idle calls', 'goal'], rows)}\n`);
  if (failures > 0) process.exitCode = 1;
}

async function measure(run: Run): Promise<{ completed: number; calls: number; idleCalls: number; usage: TokenUsage; compactions: number }> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-bench-tokens-'));
  const scriptFile = path.join(scratch, 'api-script.json');
  fs.writeFileSync(scriptFile, '{}');
  let calls = 0;
  const api = await OfflineModelServer.listen({ script: new OfflineScript(scriptFile), logger: createLogger(), key: 'sk-bench-key', onRequest: () => calls++ });
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
    execFileSync(process.execPath, [TEAMD, 'spawn', 'mate', 'bench', '--model', MODEL, '--dir', root], { env });
    const deadline = Date.now() + 300_000;
    const settled = () => board.list().tasks.every((t) => t.status === 'completed' || t.status === 'failed');
    while (!settled() && Date.now() < deadline) await delay(50);
    await delay(200);
    const before = calls;
    await delay(IDLE_WINDOW_MS);
    const idleCalls = calls - before;
    const usage = readConfig(paths.config).members.find((m) => m.name === 'mate')?.usage ?? {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    const compactions = (fs.readFileSync(paths.logFile('mate'), 'utf8').match(/conversation compacted/g) ?? []).length;
    return { completed: board.list({ status: 'completed' }).tasks.length, calls: before, idleCalls, usage, compactions };
  } finally {
    execFileSync(process.execPath, [TEAMD, 'stop', '--dir', root], { env });
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
