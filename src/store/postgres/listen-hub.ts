import type { StoreEvent, TeamStore } from '../../contracts/team-store.js';

/** One connection that LISTENs (pg-listener.ts), however many parts of the process want its events. */
export interface ListenSource {
  close(): Promise<void>;
}

interface Subscriber {
  readonly wanted: (event: StoreEvent) => boolean;
  readonly ring: (event?: StoreEvent) => void;
}

/**
 * Every `listen` of one process on one connection: the first subscriber opens it, the last one to
 * leave closes it. A daemon's doorbell, its host's requests and its relay to its teammates would
 * otherwise each hold a connection of their own (docs/stores.md, "Connections").
 */
export class ListenHub {
  private readonly subscribers = new Set<Subscriber>();
  private source: Promise<ListenSource> | null = null;

  constructor(private readonly open: (onEvent: (event: StoreEvent) => void, onReconnect: () => void) => Promise<ListenSource>) {}

  readonly listen: TeamStore['listen'] = async (wanted, ring) => {
    const subscriber: Subscriber = { wanted, ring };
    this.subscribers.add(subscriber);
    try {
      await (this.source ??= this.open(
        (event) => this.dispatch(event),
        () => this.reconnected(),
      ));
    } catch (error) {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0) this.source = null;
      throw error;
    }
    let closed = false;
    return {
      close: async () => {
        if (closed) return;
        closed = true;
        this.subscribers.delete(subscriber);
        if (this.subscribers.size > 0 || !this.source) return;
        const source = this.source;
        this.source = null;
        await (await source).close();
      },
    };
  };

  /** The store closes: its listening connection with it, whoever still listens. */
  async close(): Promise<void> {
    this.subscribers.clear();
    const source = this.source;
    this.source = null;
    await (await source)?.close();
  }

  private dispatch(event: StoreEvent): void {
    for (const subscriber of [...this.subscribers]) if (subscriber.wanted(event)) subscriber.ring(event);
  }

  /** Notifications sent while the connection was down are gone: everyone looks again. */
  private reconnected(): void {
    for (const subscriber of [...this.subscribers]) subscriber.ring();
  }
}
