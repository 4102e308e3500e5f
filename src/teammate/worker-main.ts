import { InboxConsumer } from '../inbox/consumer.js';
import { Mailbox } from '../inbox/mailbox.js';
import { createLogger, type Logger } from '../logger.js';
import { statePaths } from '../paths.js';
import { readConfig } from '../roster/roster.js';
import { Doorbell } from '../watch/doorbell.js';
import { processDaemonLink, type DaemonLink } from './daemon-link.js';
import { IdleRuntime, type RuntimeEnd } from './idle-runtime.js';
import { parseWorkerArgs } from './worker-args.js';

export interface WorkerProcess {
  readonly argv: readonly string[];
  readonly proc: NodeJS.Process;
}

/**
 * Wires one teammate process: logger, mailbox, inbox consumer, doorbell, the link to the
 * daemon. Returns how the runtime ended; the entry file turns that into an exit.
 */
export async function runWorker({ argv, proc }: WorkerProcess): Promise<{ end: RuntimeEnd; logger: Logger }> {
  const args = parseWorkerArgs(argv);
  const paths = statePaths(args.dir);
  const logger = createLogger({ destination: paths.logFile(args.name), bindings: { teammate: args.name } });
  const link: DaemonLink = processDaemonLink(proc);
  const settings = readConfig(paths.config).settings;
  const bell = await Doorbell.open({ dirs: [paths.inboxDir, paths.tasksDir], logger });
  const runtime = new IdleRuntime({
    name: args.name,
    logger,
    mailbox: new Mailbox({ paths, logger }),
    consumer: new InboxConsumer({ paths, name: args.name, logger }),
    bell,
    link,
    idleTimeoutMs: settings.idleTimeoutMs,
  });
  link.onMessage((message) => {
    logger.info({ reason: message.reason }, 'stop requested by the daemon');
    runtime.stop();
  });
  proc.once('SIGTERM', () => {
    logger.info('SIGTERM: stopping after the current step');
    runtime.stop();
  });
  logger.info('teammate started');
  try {
    return { end: await runtime.run(), logger };
  } finally {
    await bell.close();
  }
}
