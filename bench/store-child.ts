// A bench child on either store. Prints "ready", waits for "go", then:
//   claim <owner>: claims ready tasks until none is left; reports {claims: [[id, ms], ...], cpuMs}
//   read: prints one "got <latency ms>" line per message to `sink` as it is woken for it (files: its
//         inbox watch, as a teammate's; postgres: LISTEN), until a message says "end"; reports {}
// Usage: store-child.js <files|postgres-url> <stateDir> <team> <claim <owner> | read>
import { createLogger } from '../src/log/logger.js';
import { statePaths } from '../src/paths.js';
import { openStore } from '../src/store/open/open-store.js';
import { parseStore } from '../src/store/store-setting.js';
import { Doorbell } from '../src/watch/doorbell.js';
import { awaitGo, epochMs } from './child.js';

const [store, stateDir, team, mode, owner] = process.argv.slice(2) as [string, string, string, string, string | undefined];
const paths = statePaths(stateDir);
const logger = createLogger();
const opened = await openStore(parseStore(store, { team, host: 'bench' }), { paths, logger, poolSize: 2, durable: true });

if (mode === 'claim') {
  await awaitGo();
  const cpuAtStart = process.cpuUsage();
  const claims: [number, number][] = [];
  for (;;) {
    const started = performance.now();
    const task = await opened.board.claimNext(owner!);
    if (!task) break;
    claims.push([task.id, performance.now() - started]);
  }
  const cpu = process.cpuUsage(cpuAtStart);
  process.stdout.write(`${JSON.stringify({ claims, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
} else {
  const bell = await Doorbell.open({ files: opened.setting.kind === 'files' ? [paths.inboxFile('sink')] : [], logger });
  const listening = await opened.listen(
    (event) => event.kind === 'message' && event.to === 'sink',
    () => bell.ring('change', false),
  );
  let at = await opened.mail.end('sink');
  await awaitGo();
  let ended = false;
  while (!ended) {
    const page = await opened.mail.inbox('sink', at);
    at = page.next;
    for (const message of page.messages) {
      if (message.content === 'end') ended = true;
      else process.stdout.write(`got ${(epochMs() - Number(message.content)).toFixed(3)}\n`);
    }
    if (!ended) await bell.wait();
  }
  await listening?.close();
  await bell.close();
  process.stdout.write('{}\n');
}
await opened.close();
