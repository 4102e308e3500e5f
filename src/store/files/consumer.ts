import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import { CursorStore } from './cursor.js';
import { type Cursor } from '../../contracts/cursor.js';
import { lineStartsAt, readInboxFrom } from './inbox-file.js';
import type { Message } from '../../contracts/message.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { fileSizeOrZero } from '../../fs/read-text.js';
import type { Batch } from '../../contracts/mail-store.js';

export interface InboxConsumerDeps {
  readonly paths: StatePaths;
  readonly name: string;
  readonly logger: Logger;
  /**
   * Whether an id is already in the consumer's durable store (e.g. the teammate's saved
   * conversation). A consumer killed between handling and committing re-reads those
   * messages; this is what drops them.
   */
  readonly isHandled?: (id: string) => boolean;
  readonly now?: () => Date;
  /** Its own read position, when the inbox's owner keeps another (the lead agent reads lead.jsonl beside the person). */
  readonly cursorFile?: string;
}

const REMEMBERED_IDS = 10_000;

/**
 * At-least-once reading of one inbox: read() returns what lies past the cursor, and the cursor
 * moves only when commit() is called after the messages are safely handled. Duplicate ids are
 * dropped, so each message is handled effectively once.
 */
export class InboxConsumer {
  private readonly file: string;
  private readonly cursors: CursorStore;
  private readonly logger: Logger;
  private readonly isHandled: (id: string) => boolean;
  private readonly now: () => Date;
  private readonly seen = new Set<string>();
  private readonly cursorsDir: string;
  private cursor: Cursor;

  constructor(deps: InboxConsumerDeps) {
    this.file = deps.paths.inboxFile(deps.name);
    this.cursorsDir = deps.paths.cursorsDir;
    this.cursors = new CursorStore(deps.cursorFile ?? deps.paths.cursorFile(deps.name), deps.logger);
    this.logger = deps.logger;
    this.isHandled = deps.isHandled ?? (() => false);
    this.now = deps.now ?? (() => new Date());
    this.cursor = this.cursors.read();
  }

  read(): Batch {
    let from = this.cursor.offset;
    const size = fileSizeOrZero(this.file);
    if (from > size) {
      this.logger.warn({ file: this.file, offset: from, size }, 'inbox is shorter than the cursor (replaced or truncated); reading it from the start');
      from = 0;
    }
    if (from > 0 && !lineStartsAt(this.file, from)) {
      // A damaged or hand-edited cursor: starting here would drop the message it cuts through.
      this.logger.warn(
        { file: this.file, offset: from, cursor: this.cursors.file },
        'the cursor points inside a message; re-reading the inbox from the start (handled messages are recognised by id)',
      );
      from = 0;
    }
    const read = readInboxFrom(this.file, from);
    for (const line of read.skipped) this.logger.warn({ file: this.file, ...line }, 'inbox line skipped');
    const messages: Message[] = [];
    const inBatch = new Set<string>();
    let lastId = this.cursor.lastId;
    for (const { message } of read.messages) {
      lastId = message.id;
      if (inBatch.has(message.id) || this.seen.has(message.id) || this.isHandled(message.id)) continue;
      inBatch.add(message.id);
      messages.push(message);
    }
    return { messages, next: { offset: read.end, lastId } };
  }

  /** Moves the cursor past a batch once its messages are handled; until then read() returns them again. */
  commit(batch: Batch): void {
    for (const message of batch.messages) this.remember(message.id);
    const { next } = batch;
    if (next.offset === this.cursor.offset && next.lastId === this.cursor.lastId) return;
    // Made on first commit: a reader that only looks (teamd inbox --unread) writes nothing.
    ensurePrivateDir(this.cursorsDir);
    this.cursors.write(next, this.now());
    this.cursor = next;
  }

  position(): Cursor {
    return this.cursor;
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > REMEMBERED_IDS) this.seen.delete(this.seen.values().next().value!);
  }
}
