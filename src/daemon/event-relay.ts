import type { DaemonMessage } from '../contracts/ipc-protocol.js';
import type { TeamStore } from '../contracts/team-store.js';

/**
 * The daemon hears the store's notifications for its teammates and passes each on to the one it
 * is for: in PostgreSQL a teammate holds no listening connection of its own, so a host's
 * connections grow with hosts, not teammates (docs/stores.md, "Connections"). Task changes need
 * no relay: the daemon hands ready work out itself (supervisor/work-handout.ts). Null for the
 * file store, whose teammates watch their inbox files.
 */
export function relayTeammateEvents(
  store: Pick<TeamStore, 'listen'>,
  tell: (name: string | null, message: DaemonMessage) => void,
): Promise<{ close(): Promise<void> } | null> {
  return store.listen(
    (event) => event.kind === 'message',
    (event) => tell(event?.kind === 'message' ? event.to : null, { type: 'store-event', event: event ?? null }),
  );
}
