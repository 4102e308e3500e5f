import type { Logger } from '../logger.js';
import { Doorbell } from '../watch/doorbell.js';
import type { TeamStore } from '../contracts/team-store.js';

/**
 * A bell that rings when the team's board or mailboxes change: for the file store, plain watches
 * on `dirs` (some of tasks/, tasks/done/, inbox/); for PostgreSQL, every NOTIFY of the team. The
 * re-check every `rescanMs` covers an event lost either way.
 */
export async function openTeamBell(
  store: TeamStore,
  options: { readonly dirs: readonly string[]; readonly rescanMs: number; readonly logger: Logger },
): Promise<Doorbell> {
  const files = store.setting.kind === 'files';
  const bell = await Doorbell.open({ dirs: files ? options.dirs : [], rescanMs: options.rescanMs, logger: options.logger });
  const listening = await store.listen(
    () => true,
    () => bell.ring('change', false),
  );
  if (listening) bell.onClose(() => listening.close());
  return bell;
}
