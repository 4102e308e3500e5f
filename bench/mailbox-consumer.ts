// Benchmark consumer: reads <name>'s inbox until <total> messages arrived, woken either by the
// chokidar doorbell ("watch") or by a fixed sleep ("poll:<ms>", like the seeds). Reports the
// latency from each message's sentAt to the moment the consumer had read it.
// Usage: mailbox-consumer.js <stateDir> <name> <total> <watch|poll:ms>
import { setTimeout as delay } from 'node:timers/promises';
import { InboxConsumer } from '../src/store/files/consumer.js';
import { createLogger } from '../src/log/logger.js';
import { statePaths } from '../src/paths.js';
import { Doorbell } from '../src/watch/doorbell.js';
import { awaitGo, epochMs } from './child.js';

const [stateDir, name, totalArg, mode] = process.argv.slice(2) as [string, string, string, string];
const paths = statePaths(stateDir);
const logger = createLogger();
const total = Number(totalArg);
const bell = mode === 'watch' ? await Doorbell.open({ dirs: [paths.inboxDir], logger }) : null;
const pollMs = mode.startsWith('poll:') ? Number(mode.slice(5)) : 0;
const consumer = new InboxConsumer({ paths, name, logger });
await awaitGo();
const latencies: number[] = [];
while (latencies.length < total) {
  const batch = consumer.read();
  const now = epochMs();
  for (const message of batch.messages) latencies.push(now - Number(message.sentAt));
  consumer.commit(batch);
  if (latencies.length >= total) break;
  if (bell) await bell.wait();
  else await delay(pollMs);
}
await bell?.close();
process.stdout.write(`${JSON.stringify({ latencies })}\n`);
