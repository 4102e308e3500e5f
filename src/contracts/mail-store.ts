import type { Cursor } from './cursor.js';
import type { Message, MessageType } from './message.js';

export interface Batch {
  /** New messages in inbox order, without ids already handled. */
  readonly messages: Message[];
  /** Where the cursor goes once all of them are handled. */
  readonly next: Cursor;
}

export interface Outgoing {
  /** Stamped by the sending runtime (the CLI, a worker) — never taken from model output. */
  readonly from: string;
  readonly to: string;
  readonly type?: MessageType | undefined;
  readonly content: string;
  readonly requestId?: string | undefined;
  readonly approve?: boolean | undefined;
  readonly extra?: Readonly<Record<string, unknown>> | undefined;
}

export type { Cursor };

export interface InboxPage {
  readonly messages: Message[];
  readonly next: number;
  /** Lines or rows that are not valid messages: where (a byte offset, a sequence number) and why. */
  readonly skipped: { readonly at: string; readonly reason: string }[];
}

/**
 * At-least-once reading of one inbox: read() returns what lies past the cursor (without ids
 * already handled); the cursor moves only when commit() is called after they are handled.
 */
export interface InboxReader {
  read(): Promise<Batch>;
  commit(batch: Batch): Promise<void>;
  position(): Cursor;
}

export interface InboxReaderOptions {
  readonly name: string;
  /** Ids already in the reader's durable store (its saved conversation): dropped on a re-read. */
  readonly isHandled?: (id: string) => boolean;
  /** Its own read position when another reader reads the same inbox (the lead agent beside the person). */
  readonly cursor?: 'own' | 'lead-agent';
}

/**
 * The mailboxes, whichever store holds them: one inbox per recipient, appended whole, in the
 * order sent; a message is never lost, duplicated or reordered per sender (docs/stores.md).
 */
export interface MailStore {
  /**
   * Whether inbox(…, only) reads just those types without going through the others (PostgreSQL's
   * rows); where it does not (one file per inbox), the daemon keeps a scan of the lead's inbox
   * for the commands that look for requests (inbox/request-scan.ts).
   */
  readonly readsByType: boolean;
  /** Everyone who can receive: the lead, every member, and the person (`user`). */
  recipients(): Promise<string[]>;
  /**
   * Makes a recipient's inbox exist, empty if new, so `tail -f` can follow it before its first
   * message (the file store: the daemon's lead at start, a member at spawn); a store without
   * files has nothing to make.
   */
  openInbox(name: string): Promise<void>;
  send(outgoing: Outgoing): Promise<Message>;
  /** One message to every recipient but the sender (and the person); each gets its own id. */
  broadcast(outgoing: Omit<Outgoing, 'to' | 'type'>): Promise<Message[]>;
  /**
   * The messages of one inbox past `from` (a position an earlier call returned; 0: the start), in
   * order, and what could not be read as a message (left where it is). With `only`, just the
   * messages of those types, without parsing the others where the store can tell them apart
   * unparsed; what is not a message is then reported only if it may have been one of them.
   */
  inbox(name: string, from?: number, only?: readonly MessageType[]): Promise<InboxPage>;
  /** Calls `onMessage` for each message of an inbox past `from`, then for each new one as it arrives, until the signal aborts. */
  follow(name: string, from: number, onMessage: (message: Message) => void, signal: AbortSignal): Promise<void>;
  /** The position just past the last message of an inbox now: what inbox() returns from there on is newer. */
  end(name: string): Promise<number>;
  reader(options: InboxReaderOptions): InboxReader;
  /** The newest `count` messages across every inbox, oldest first (teamd watch). */
  latest(count: number): Promise<Message[]>;
  /** Whether an inbox holds messages past its owner's cursor (the supervisor wakes a sleeping teammate for them). */
  hasUnread(name: string): Promise<boolean>;
}
