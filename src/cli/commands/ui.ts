import { Command, InvalidArgumentError } from 'commander';
import { requestDaemon } from '../../daemon/control-client.js';
import { readLiveDaemon } from '../../proc/pid-file.js';
import type { StatePaths } from '../../paths.js';
import { openContext, pathsFor } from '../context.js';
import { untilInterrupted } from '../interrupt.js';
import { printJson, type Io } from '../output.js';
import { openViewBell } from '../watch/view-bell.js';
import { readPageAssets } from '../../ui/page-assets.js';
import { TOKEN_ENV, UiServer } from '../../ui/ui-server.js';
import { withCommonOptions, type CommonOptions } from './common.js';

interface UiOptions extends CommonOptions {
  port: number;
  host: string;
}

function parsePort(raw: string): number {
  if (!/^\d{1,5}$/.test(raw.trim()) || Number(raw) > 65_535)
    throw new InvalidArgumentError(`expected a port from 0 (any free one) to 65535, got ${JSON.stringify(raw)}.`);
  return Number(raw);
}

export function uiCommand(io: Io): Command {
  return withCommonOptions(
    new Command('ui').description(
      "serve the team's dashboard in a browser (board, teammates, requests to answer, messages) until Ctrl-C; prints its address with its token",
    ),
  )
    .option('--port <n>', 'the port to listen on (0: any free port)', parsePort, 0)
    .option('--host <address>', `the interface (127.0.0.1; another needs a token in $${TOKEN_ENV})`, '127.0.0.1')
    .action(async (options: UiOptions) => {
      const served = await daemonDashboard(io, pathsFor(io, options.dir));
      if (served) {
        if (options.json) printJson(io, { url: served, servedBy: 'daemon' });
        else io.out(`teamd ui: the daemon serves the dashboard at\n    ${served}\n`);
        return;
      }
      const { paths, store, logger } = await openContext(io, options.dir, 'write');
      const assets = readPageAssets();
      const bell = await openViewBell(paths, store, logger);
      const token = io.env[TOKEN_ENV]?.trim() || undefined;
      try {
        const server = await UiServer.start({ paths, store, logger, assets, bell, host: options.host, port: options.port, token });
        if (options.json) printJson(io, { url: server.url, servedBy: 'teamd ui', port: server.access.port });
        else io.out(`teamd ui: the dashboard of ${paths.root} is at\n    ${server.url}\nopen it in a browser on this machine; Ctrl-C stops it\n`);
        await untilInterrupted((signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
        await server.close();
      } finally {
        await bell.close();
        await store.close();
      }
    });
}

/**
 * The address of the dashboard the daemon serves (its `ui` setting), or null: no daemon runs, it
 * serves none, or it could not start one (then said why, and this command serves one itself).
 */
async function daemonDashboard(io: Io, paths: StatePaths): Promise<string | null> {
  if (!readLiveDaemon(paths)) return null;
  const answer = (await requestDaemon(paths, { op: 'ui' }).catch(() => null)) as { url: string | null; error: string | null } | null;
  if (answer?.error) io.err(`teamd: the daemon's dashboard did not start (${answer.error}); serving one from this command instead\n`);
  return answer?.url ?? null;
}
