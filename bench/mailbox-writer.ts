// Benchmark writer. Modes:
//   flood <count>: send as fast as possible, report {sent, ms}
//   paced <count> <minGapMs> <maxGapMs> [burst]: send bursts of [burst] messages at random gaps
// Each message carries sentAt (epoch ms) so the consumer can measure wake latency.
// Usage: mailbox-writer.js <stateDir> <from> <to> <mode> ...
import { setTimeout as delay } from 'node:timers/promises';
import { Mailbox } from '../src/store/files/mailbox.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths } from '../src/paths.js';
import { awaitGo, epochMs } from './child.js';

const [stateDir, from, to, mode, ...rest] = process.argv.slice(2) as [string, string, string, string, ...string[]];
const mailbox = new Mailbox({ paths: statePaths(stateDir), logger: createLogger() });
const send = (seq: number): void => {
  mailbox.send({ from, to, content: `${from}:${seq}`, extra: { sentAt: epochMs() } });
};

await awaitGo();
const started = performance.now();
let seq = 0;
if (mode === 'flood') {
  for (const count = Number(rest[0]); seq < count; seq++) send(seq);
} else {
  const [count, minGap, maxGap, burst = '1'] = rest.map(Number) as [number, number, number, number?];
  while (seq < count) {
    await delay(minGap + Math.random() * (maxGap - minGap));
    for (let i = 0; i < Number(burst) && seq < count; i++) send(seq++);
  }
}
process.stdout.write(`${JSON.stringify({ sent: seq, ms: performance.now() - started })}\n`);
