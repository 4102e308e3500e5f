import type { TeamSettings } from '../contracts/roster.js';
import type { TeamStore } from '../contracts/team-store.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { openViewBell } from '../cli/watch/view-bell.js';
import { readPageAssets } from './page-assets.js';
import { TOKEN_ENV, UiServer } from './ui-server.js';

export interface DaemonDashboard {
  readonly url: string;
  close(): Promise<void>;
}

/** The dashboard a daemon serves for its whole life when its settings have `ui` (src/daemon/daemon.ts starts it). */
export async function serveDashboard(parts: {
  readonly paths: StatePaths;
  readonly store: TeamStore;
  readonly logger: Logger;
  readonly setting: NonNullable<TeamSettings['ui']>;
  readonly env: NodeJS.ProcessEnv;
}): Promise<DaemonDashboard> {
  const { paths, store, logger, setting } = parts;
  const bell = await openViewBell(paths, store, logger);
  try {
    const server = await UiServer.start({
      paths,
      store,
      logger,
      bell,
      assets: readPageAssets(),
      host: setting.host,
      port: setting.port,
      token: parts.env[TOKEN_ENV]?.trim() || undefined,
      extraHosts: setting.allowedHosts,
    });
    return {
      url: server.url,
      close: async () => {
        await server.close();
        await bell.close();
      },
    };
  } catch (error) {
    await bell.close();
    throw error;
  }
}
