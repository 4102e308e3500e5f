// Entry of one teammate process, forked by the daemon with an IPC channel.
import { statePaths } from '../src/paths.js';
import { killLeftovers, spawnMarker } from '../src/supervisor/leftovers.js';
import { processDaemonLink } from '../src/teammate/daemon-link.js';
import { parseWorkerArgs } from '../src/teammate/worker-args.js';
import { runWorker } from '../src/teammate/worker-main.js';
import { routeConsoleWarnings } from './console-warnings.js';
import { keepUndiciUnloaded } from '../src/model/http/web-globals.js';
import { takeDeferredCa } from '../src/model/http/extra-ca.js';

// Before anything can touch Node's Headers or FormData, which would load undici (see web-globals.ts).
keepUndiciUnloaded(globalThis);
// NODE_EXTRA_CA_CERTS, which the daemon moved aside so Node would not load it at start (extra-ca.ts).
const extraCaFile = takeDeferredCa(process.env);

/** Until the teammate ended cleanly without ever starting a command, commands of ours may be running. */
let mayHaveLeftovers = true;

// The daemon died (even by kill -9), or we closed the channel: end the commands we started
// (a sandbox ends them with us anyway; unsandboxed, they carry our marker), then exit at once.
processDaemonLink(process).onDisconnect(() => {
  try {
    // The search reads every process's environment: skipped when there cannot be anything to find.
    if (mayHaveLeftovers) killLeftovers(spawnMarker(process.pid, statePaths(parseWorkerArgs(process.argv.slice(2)).dir).root));
  } finally {
    process.exit(process.exitCode ?? 0);
  }
});

try {
  const { end, logger, commandsStarted } = await runWorker({
    argv: process.argv.slice(2),
    proc: process,
    onLogger: (logger) => routeConsoleWarnings(console, logger),
    extraCaFile,
  });
  mayHaveLeftovers = commandsStarted > 0;
  logger.info({ end }, 'teammate exiting');
  process.exitCode = 0;
} catch (error) {
  process.stderr.write(`teammate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  // The IPC channel keeps the event loop alive: close it so the process really ends.
  if (process.connected) process.disconnect();
}
