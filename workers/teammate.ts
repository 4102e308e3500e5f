// Entry of one teammate process, forked by the daemon with an IPC channel.
import { processDaemonLink } from '../src/teammate/daemon-link.js';
import { runWorker } from '../src/teammate/worker-main.js';

// The daemon died (even by kill -9), or we closed the channel: exit at once, never linger as an orphan.
processDaemonLink(process).onDisconnect(() => process.exit(process.exitCode ?? 0));

try {
  const { end, logger } = await runWorker({ argv: process.argv.slice(2), proc: process });
  logger.info({ end }, 'teammate exiting');
  process.exitCode = 0;
} catch (error) {
  process.stderr.write(`teammate failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  // The IPC channel keeps the event loop alive: close it so the process really ends.
  if (process.connected) process.disconnect();
}
