import type { Client } from 'pg';
import type { Logger } from '../../log/logger.js';
import { NOTIFY_CHANNEL } from './notify.js';
import type { StoreEvent } from '../../contracts/team-store.js';
import { storeEventSchema } from '../../contracts/team-store.js';
import { within } from '../../platform/within.js';

export interface PgListenerOptions {
  readonly connect: () => Promise<Client>;
  readonly team: string;
  readonly onEvent: (event: StoreEvent) => void;
  /** After the connection was lost and is back: notifications sent meanwhile are gone, so look again. */
  readonly onReconnect: () => void;
  readonly logger: Logger;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;
const END_WAIT_MS = 1_000;

/**
 * A dedicated connection that LISTENs on teamd's channel and passes on its team's events. A
 * lost connection is retried by a timer, backing off from 0.5 s to 30 s between tries (never a
 * busy loop); while it is down, the caller's periodic re-check is what finds new work, so a
 * dropped notification delays, and never strands, anything.
 */
export class PgListener {
  private client: Client | null = null;
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly options: PgListenerOptions) {}

  /** Listening once this resolves; a first connection that fails is retried in the background like a lost one. */
  static async open(options: PgListenerOptions): Promise<PgListener> {
    const listener = new PgListener(options);
    await listener.attach(false);
    return listener;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    // A connection on a dead link never hears the goodbye answered: not waited for past a moment (the store's close cuts it).
    if (client) await within(client.end(), END_WAIT_MS);
  }

  private async attach(reconnecting: boolean): Promise<void> {
    let client: Client | null = null;
    try {
      client = await this.options.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (error) {
      // A connection that opened but could not LISTEN is closed: no socket is left behind.
      await client?.end().catch(() => undefined);
      this.options.logger.warn({ err: error, retryMs: this.retryMs }, 'cannot listen to the store for changes; retrying (periodic re-checks go on meanwhile)');
      this.schedule();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    client.on('notification', (note) => this.dispatch(note.payload));
    const lost = (error?: Error): void => {
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed) return;
      this.options.logger.warn({ err: error }, 'lost the connection that listens to the store; reconnecting');
      this.schedule();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    if (reconnecting) {
      this.options.logger.info('listening to the store again');
      this.options.onReconnect();
    }
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.attach(true), this.retryMs);
    this.timer.unref?.();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private dispatch(payload: string | undefined): void {
    let raw: unknown;
    try {
      raw = JSON.parse(payload ?? '');
    } catch {
      return;
    }
    const parsed = storeEventSchema.safeParse(raw);
    if (parsed.success && parsed.data.team === this.options.team) this.options.onEvent(parsed.data);
  }
}
