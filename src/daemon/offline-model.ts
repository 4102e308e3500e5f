import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import type { RosterStore } from '../roster/roster-store.js';
import { OfflineModelServer } from '../model/offline/server.js';
import { OfflineScript } from '../model/offline/script.js';

/**
 * The daemon's offline model endpoint on 127.0.0.1, scripted by offline-script.json and with the
 * team's offline context window. For tests, TEAMD_OFFLINE_RECORD names a file that gets one line
 * per request (teammate, system prompt, tools).
 */
export async function openOfflineModel(paths: StatePaths, roster: RosterStore, env: NodeJS.ProcessEnv, logger: Logger): Promise<OfflineModelServer> {
  return OfflineModelServer.listen({
    script: new OfflineScript(path.join(paths.root, 'offline-script.json'), (message) => logger.error(message)),
    logger: logger.child({ component: 'offline-model' }),
    contextWindowTokens: () => roster.read().settings.offlineContextTokens,
    ...(env.TEAMD_OFFLINE_RECORD ? { onDecide: recordRequests(env.TEAMD_OFFLINE_RECORD) } : {}),
  });
}

/** Appends what the offline model saw to a file, one JSON line per request. */
function recordRequests(file: string): (seen: { teammate: string; system: string; tools: readonly string[] }) => void {
  return (seen) => fs.appendFileSync(file, `${JSON.stringify(seen)}\n`);
}
