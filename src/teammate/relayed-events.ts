import type { StoreEvent, TeamStore } from '../contracts/team-store.js';
import type { DaemonLink } from './daemon-link.js';

/**
 * A teammate's `listen` on a store with notifications: the events its daemon relays
 * (daemon/event-relay.ts: the messages to this teammate) instead of a connection of its own. A
 * relayed null (the daemon may have missed changes) rings every listener, to look again.
 */
export function relayedListen(link: Pick<DaemonLink, 'onMessage'>): TeamStore['listen'] {
  const listeners = new Set<{ wanted: (event: StoreEvent) => boolean; ring: (event?: StoreEvent) => void }>();
  link.onMessage((message) => {
    if (message.type !== 'store-event') return;
    for (const listener of [...listeners]) {
      if (message.event === null) listener.ring();
      else if (listener.wanted(message.event)) listener.ring(message.event);
    }
  });
  return async (wanted, ring) => {
    const listener = { wanted, ring };
    listeners.add(listener);
    return { close: async () => void listeners.delete(listener) };
  };
}
