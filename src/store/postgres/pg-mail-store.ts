import type { Pool, PoolClient } from 'pg';
import { TeamdError } from '../../errors.js';
import type { Logger } from '../../log/logger.js';
import { parseName } from '../../contracts/names.js';
import { LEAD, USER } from '../../contracts/roster.js';
import type { Outgoing, Batch, Cursor, InboxPage, InboxReader, InboxReaderOptions, MailStore } from '../../contracts/mail-store.js';
import { messageSchema, type Message, type MessageType } from '../../contracts/message.js';
import { buildMessage } from '../../domain/message-builder.js';
import type { ProtocolKey } from '../protocol-key.js';
import type { StoreEvent } from '../../contracts/team-store.js';
import { inTransaction, patiently, Rollback, storeError } from './transaction.js';
import { type Patience } from '../open-store-deps.js';
import { NOTIFY_CHANNEL } from './notify.js';

export interface PgMailStoreDeps {
  readonly pool: Pool;
  readonly team: string;
  readonly key: ProtocolKey;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** How long to wait out an unreachable store (none: fail at once). */
  readonly patience?: Patience;
  /** Opens a LISTEN for the store's events (pg-store.ts); none: follow() only re-checks. */
  readonly listen?: (wanted: (event: StoreEvent) => boolean, ring: () => void) => Promise<{ close(): Promise<void> } | null>;
}

/** Messages one read returns at most; the next read goes on from there. */
const READ_LIMIT = 500;
const REMEMBERED_IDS = 10_000;
/** How often follow() looks again without a notification. */
const FOLLOW_RECHECK_MS = 2_000;

interface MessageRow {
  readonly seq: string;
  readonly data: unknown;
}

/**
 * The mailboxes in PostgreSQL: a message is a row of its recipient's inbox with the next number
 * of that inbox (teamd_inboxes.last_seq, bumped under the inbox row's lock, so numbers are given
 * in commit order without gaps). A message id is unique per inbox, so a send retried after a lost
 * answer never delivers twice. Each reader's cursor is a row; LISTEN/NOTIFY tells of new messages.
 */
export class PgMailStore implements MailStore {
  /** A message's type is a column: inbox(…, only) selects by it. */
  readonly readsByType = true;
  private readonly pool: Pool;
  private readonly team: string;
  private readonly key: ProtocolKey;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly listen: NonNullable<PgMailStoreDeps['listen']>;
  private readonly patience: Patience | undefined;

  constructor(deps: PgMailStoreDeps) {
    this.pool = deps.pool;
    this.team = deps.team;
    this.key = deps.key;
    this.logger = deps.logger;
    this.now = deps.now ?? (() => new Date());
    this.listen = deps.listen ?? (async () => null);
    this.patience = deps.patience;
  }

  async recipients(): Promise<string[]> {
    const rows = await this.query<{ name: string }>('SELECT name FROM teamd_members WHERE team = $1 ORDER BY name', [this.team]);
    return [...new Set([LEAD, ...rows.map((row) => row.name), USER])];
  }

  /** Rows, not files: an inbox exists once it has a message. */
  async openInbox(): Promise<void> {}

  async send(outgoing: Outgoing): Promise<Message> {
    const message = buildMessage(outgoing, { now: this.now(), key: this.key });
    if (message.to !== LEAD && message.to !== USER) {
      const recipients = await this.recipients();
      if (!recipients.includes(message.to)) {
        throw new TeamdError(
          'UNKNOWN_RECIPIENT',
          `no teammate named "${message.to}": recipients are ${recipients.join(', ')} (team ${this.team}). Nothing was sent`,
          {
            details: { to: message.to, recipients },
          },
        );
      }
    }
    await inTransaction(this.pool, (client) => this.append(client, message), this.patience).catch(ignoreAlreadyAppended);
    this.logSent(message);
    return message;
  }

  async broadcast(outgoing: Omit<Outgoing, 'to' | 'type'>): Promise<Message[]> {
    const from = parseName(outgoing.from, 'sender');
    const targets = (await this.recipients()).filter((name) => name !== from && name !== USER);
    const messages = targets.map((to) => buildMessage({ ...outgoing, to, type: 'broadcast' }, { now: this.now(), key: this.key }));
    // One transaction: every recipient gets it, or none does. Inboxes are locked in name order (no deadlock).
    await inTransaction(
      this.pool,
      async (client) => {
        for (const message of [...messages].sort((a, b) => a.to.localeCompare(b.to))) await this.append(client, message);
      },
      this.patience,
    ).catch(ignoreAlreadyAppended);
    for (const message of messages) this.logSent(message);
    return messages;
  }

  async inbox(name: string, from = 0, only?: readonly MessageType[]): Promise<InboxPage> {
    const messages: Message[] = [];
    const skipped: InboxPage['skipped'] = [];
    let next = from;
    // Bounded by the inbox's length: each round reads the next READ_LIMIT rows.
    for (;;) {
      const page = await this.page(name, next, only);
      messages.push(...page.messages.map((entry) => entry.message));
      skipped.push(...page.skipped);
      next = page.next;
      if (page.rows < READ_LIMIT) return { messages, next, skipped };
    }
  }

  async follow(name: string, from: number, onMessage: (message: Message) => void, signal: AbortSignal): Promise<void> {
    let rung: (() => void) | null = null;
    const ring = (): void => {
      rung?.();
      rung = null;
    };
    const listening = await this.listen((event) => event.kind === 'message' && event.to === name, ring);
    signal.addEventListener('abort', ring, { once: true });
    let at = from;
    try {
      while (!signal.aborted) {
        const woken = new Promise<void>((resolve) => {
          rung = resolve;
          // The safety re-check: a notification lost with a connection delays, never hides, a message.
          setTimeout(resolve, FOLLOW_RECHECK_MS).unref();
        });
        const page = await this.inbox(name, at);
        for (const message of page.messages) onMessage(message);
        at = page.next;
        if (!signal.aborted) await woken;
      }
    } finally {
      await listening?.close();
    }
  }

  async latest(count: number): Promise<Message[]> {
    const rows = await this.query<{ data: unknown }>("SELECT data FROM teamd_messages WHERE team = $1 ORDER BY data->>'timestamp' DESC, seq DESC LIMIT $2", [
      this.team,
      count,
    ]);
    return rows
      .flatMap((row) => {
        const parsed = messageSchema.safeParse(row.data);
        return parsed.success ? [parsed.data] : [];
      })
      .reverse();
  }

  async end(name: string): Promise<number> {
    const rows = await this.query<{ last_seq: string }>('SELECT last_seq FROM teamd_inboxes WHERE team = $1 AND recipient = $2', [this.team, name]);
    return rows[0] ? Number(rows[0].last_seq) : 0;
  }

  async hasUnread(name: string): Promise<boolean> {
    const rows = await this.query<{ unread: boolean }>(
      `SELECT i.last_seq > COALESCE((SELECT c.seq FROM teamd_cursors c WHERE c.team = i.team AND c.consumer = i.recipient), 0) AS unread
       FROM teamd_inboxes i WHERE i.team = $1 AND i.recipient = $2`,
      [this.team, name],
    );
    return rows[0]?.unread === true;
  }

  reader(options: InboxReaderOptions): InboxReader {
    const name = parseName(options.name, 'reader');
    const consumer = options.cursor === 'lead-agent' ? `${name}.agent` : name;
    const isHandled = options.isHandled ?? (() => false);
    const seen = new Set<string>();
    let cursor: Cursor | null = null;
    const position = async (): Promise<Cursor> => {
      if (cursor) return cursor;
      const rows = await this.query<{ seq: string; last_id: string | null }>('SELECT seq, last_id FROM teamd_cursors WHERE team = $1 AND consumer = $2', [
        this.team,
        consumer,
      ]);
      cursor = rows[0] ? { offset: Number(rows[0].seq), lastId: rows[0].last_id } : { offset: 0, lastId: null };
      return cursor;
    };
    return {
      read: async (): Promise<Batch> => {
        const at = await position();
        const page = await this.page(name, at.offset);
        const messages: Message[] = [];
        let lastId = at.lastId;
        for (const { message } of page.messages) {
          lastId = message.id;
          if (seen.has(message.id) || isHandled(message.id)) continue;
          messages.push(message);
        }
        return { messages, next: { offset: page.next, lastId } };
      },
      commit: async (batch: Batch): Promise<void> => {
        for (const message of batch.messages) {
          seen.add(message.id);
          if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value!);
        }
        const at = await position();
        if (batch.next.offset === at.offset && batch.next.lastId === at.lastId) return;
        // Only forward: a reader that committed an older batch late never moves the cursor back.
        await this.query(
          `INSERT INTO teamd_cursors (team, consumer, seq, last_id, updated_at) VALUES ($1, $2, $3, $4, now())
           ON CONFLICT (team, consumer) DO UPDATE SET seq = excluded.seq, last_id = excluded.last_id, updated_at = now()
           WHERE teamd_cursors.seq <= excluded.seq`,
          [this.team, consumer, batch.next.offset, batch.next.lastId],
        );
        cursor = batch.next;
      },
      position: () => cursor ?? { offset: 0, lastId: null },
    };
  }

  /**
   * Appends one message to its inbox under the inbox row's lock (taken by the UPDATE that gives
   * the next number); an id already there is not appended again. The team's and the inbox's rows
   * are made only the first time (the UPDATE finds no row).
   */
  private async append(client: PoolClient, message: Message): Promise<void> {
    const bump = 'UPDATE teamd_inboxes SET last_seq = last_seq + 1 WHERE team = $1 AND recipient = $2 RETURNING last_seq';
    let bumped = await client.query<{ last_seq: string }>(bump, [this.team, message.to]);
    if (!bumped.rows[0]) {
      await client.query('INSERT INTO teamd_teams (team) VALUES ($1) ON CONFLICT DO NOTHING', [this.team]);
      await client.query('INSERT INTO teamd_inboxes (team, recipient) VALUES ($1, $2) ON CONFLICT DO NOTHING', [this.team, message.to]);
      bumped = await client.query<{ last_seq: string }>(bump, [this.team, message.to]);
    }
    // Under the lock: a retried send of this id finds it, and the bump is rolled back with the rest.
    const already = await client.query('SELECT 1 FROM teamd_messages WHERE team = $1 AND recipient = $2 AND id = $3', [this.team, message.to, message.id]);
    if (already.rowCount) throw new AlreadyAppended();
    const seq = Number(bumped.rows[0]!.last_seq);
    await client.query('INSERT INTO teamd_messages (team, recipient, seq, id, sender, data) VALUES ($1, $2, $3, $4, $5, $6)', [
      this.team,
      message.to,
      seq,
      message.id,
      message.from,
      JSON.stringify(message),
    ]);
    await client.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, JSON.stringify({ team: this.team, kind: 'message', to: message.to, seq })]);
  }

  /** The next READ_LIMIT rows of an inbox past `after`; with `only`, of those types (the row's own `type`, before parsing). */
  private async page(
    name: string,
    after: number,
    only?: readonly MessageType[],
  ): Promise<{ messages: { seq: number; message: Message }[]; next: number; rows: number; skipped: InboxPage['skipped'] }> {
    const rows = await this.query<MessageRow>(
      "SELECT seq, data FROM teamd_messages WHERE team = $1 AND recipient = $2 AND seq > $3 AND ($5::text[] IS NULL OR data->>'type' = ANY($5)) ORDER BY seq LIMIT $4",
      [this.team, name, after, READ_LIMIT, only === undefined ? null : [...only]],
    );
    const messages: { seq: number; message: Message }[] = [];
    const skipped: InboxPage['skipped'] = [];
    let next = after;
    for (const row of rows) {
      next = Number(row.seq);
      const parsed = messageSchema.safeParse(row.data);
      if (parsed.success) messages.push({ seq: next, message: parsed.data });
      else {
        const reason = parsed.error.issues[0]?.message ?? 'invalid';
        this.logger.warn({ team: this.team, recipient: name, seq: next, reason }, 'invalid message row skipped');
        skipped.push({ at: `message ${next} of ${name}'s inbox (team ${this.team})`, reason });
      }
    }
    return { messages, next, rows: rows.length, skipped };
  }

  private logSent(message: Message): void {
    this.logger.info({ messageId: message.id, type: message.type, from: message.from, to: message.to }, 'message sent');
  }

  private async query<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    return patiently(this.patience, async () => {
      try {
        return (await this.pool.query<R>(sql, params)).rows;
      } catch (error) {
        throw storeError(error);
      }
    });
  }
}

/** A retried send whose message is already in the inbox: its transaction is rolled back, and it counts as sent. */
class AlreadyAppended extends Rollback {}

function ignoreAlreadyAppended(error: unknown): void {
  if (!(error instanceof AlreadyAppended)) throw error;
}
