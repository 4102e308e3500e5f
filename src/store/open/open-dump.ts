import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import type { StoreSetting } from '../../contracts/team-store.js';
import type { DumpableStore } from '../team-dump.js';

/** A store to dump from or load into (teamd store copy), each loaded only where used, and how to let it go. */
export async function openDump(
  setting: StoreSetting,
  deps: { readonly paths: StatePaths; readonly leaseMs: number; readonly logger: Logger },
): Promise<{ readonly store: DumpableStore; close(): Promise<void> }> {
  if (setting.kind === 'files') {
    const { fileDump } = await import('../files/file-dump.js');
    return { store: fileDump(deps.paths, deps.logger), close: async () => undefined };
  }
  const { pgDump } = await import('../postgres/pg-dump.js');
  const store = pgDump(setting.url, setting.team, setting.host, deps.leaseMs, deps.logger);
  return { store, close: () => store.close() };
}
