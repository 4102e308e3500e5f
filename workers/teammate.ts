// Entry of one teammate process, forked by the daemon with an IPC channel.
import { statePaths } from '../src/paths.js';
import { isDiskFull } from '../src/errors.js';
import { killLeftovers, spawnMarker } from '../src/supervisor/leftovers.js';
import { DISK_FULL_EXIT_CODE, HEAP_EXIT_CODE } from '../src/supervisor/restart-policy.js';
import { processDaemonLink } from '../src/teammate/daemon-link.js';
import { parseWorkerArgs } from '../src/teammate/worker-args.js';
import { runWorker } from '../src/teammate/worker-main.js';
import { routeConsoleWarnings } from './console-warnings.js';
import { keepWebGlobalsUnloaded } from '../src/platform/http/web-globals.js';
import { takeDeferredCa } from '../src/platform/http/extra-ca.js';

// Before anything can touch Node's Headers or FormData, which would load undici (see web-globals.ts).
keepWebGlobalsUnloaded(globalThis);
// NODE_EXTRA_CA_CERTS, which the daemon moved aside so Node would not load it at start (extra-ca.ts).
const extraCaFile = takeDeferredCa(process.env);

/** Until the teammate ended cleanly without ever starting an unconfined command, commands of ours may be running. */
let mayHaveLeftovers = true;
/** We close the channel ourselves, ending: the daemon is there and sweeps after our exit (supervisor/clean-up.ts). */
let closingChannel = false;

// The daemon died (even by kill -9), or we closed the channel: end the commands we started
// (a sandbox ends them with us anyway; unsandboxed, they carry our marker), then exit at once.
processDaemonLink(process).onDisconnect(() => {
  try {
    // The search reads every process's environment (with 100 teammates stopping at once, 100
    // times that of every process): only when the daemon is gone and something may be left.
    if (mayHaveLeftovers && !closingChannel) killLeftovers(spawnMarker(process.pid, statePaths(parseWorkerArgs(process.argv.slice(2)).dir).root));
  } finally {
    process.exit(process.exitCode ?? 0);
  }
});

// No top-level await: the bundle runs as CommonJS, with V8's code cache (src/platform/boot/teammate-start.ts).
async function main(): Promise<void> {
  try {
    const { end, logger, unconfinedStarted, heapOver } = await runWorker({
      argv: process.argv.slice(2),
      proc: process,
      onLogger: (logger) => routeConsoleWarnings(console, logger),
      extraCaFile,
    });
    mayHaveLeftovers = unconfinedStarted > 0;
    logger.info({ end, heapOver }, 'teammate exiting');
    // Over its heap's bound, it is a crash for the daemon: started again, its task resumed (heap-bound.ts).
    process.exitCode = heapOver ? HEAP_EXIT_CODE : 0;
  } catch (error) {
    process.stderr.write(`teammate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    // A full disk is waited out by the daemon, not counted as a crash (supervisor/restart-policy.ts).
    process.exitCode = isDiskFull(error) ? DISK_FULL_EXIT_CODE : 1;
  } finally {
    // The IPC channel keeps the event loop alive: close it so the process really ends.
    if (process.connected) {
      closingChannel = true;
      process.disconnect();
    }
  }
}

void main();
