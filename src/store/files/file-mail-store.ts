import fs from 'node:fs';
import type { Message } from '../../contracts/message.js';
import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import { InboxConsumer } from './consumer.js';
import { CursorStore } from './cursor.js';
import { readInboxFrom } from './inbox-file.js';
import { fileSizeOrZero } from '../../fs/read-text.js';
import { parseInboxChunk } from './inbox-parser.js';
import { followLines } from '../../watch/follow-lines.js';
import type { Mailbox } from './mailbox.js';
import type { MailStore } from '../../contracts/mail-store.js';

/** The file store's mailboxes (one append-only JSONL file per recipient) behind the MailStore interface. */
export function fileMailStore(deps: { readonly paths: StatePaths; readonly mailbox: Mailbox; readonly logger: Logger }): MailStore {
  const { paths, mailbox, logger } = deps;
  return {
    // An inbox is one file: reading some types means going through the others.
    readsByType: false,
    recipients: async () => mailbox.recipients(),
    openInbox: async (name) => mailbox.openInbox(name),
    send: async (outgoing) => mailbox.send(outgoing),
    broadcast: async (outgoing) => mailbox.broadcast(outgoing),
    inbox: async (name, from = 0, only) => {
      const file = paths.inboxFile(name);
      const read = readInboxFrom(file, from, only);
      for (const line of read.skipped) logger.warn({ file, ...line }, 'inbox line skipped');
      return {
        messages: read.messages.map((parsed) => parsed.message),
        next: read.end,
        skipped: read.skipped.map((line) => ({ at: `byte ${line.offset} of ${file}`, reason: line.reason })),
      };
    },
    follow: (name, from, onMessage, signal) =>
      // Each complete line is parsed like any inbox line (a torn fragment glued to a record is recovered).
      followLines(
        paths.inboxFile(name),
        from,
        (line) => {
          const parsed = parseInboxChunk(Buffer.from(`${line}\n`), 0);
          for (const skipped of parsed.skipped) logger.warn({ file: paths.inboxFile(name), reason: skipped.reason }, 'inbox line skipped');
          for (const { message } of parsed.messages) onMessage(message);
        },
        signal,
        logger,
      ),
    latest: async (count) => latestMessages(paths, count),
    end: async (name) => fileSizeOrZero(paths.inboxFile(name)),
    hasUnread: async (name) => fileSizeOrZero(paths.inboxFile(name)) > new CursorStore(paths.cursorFile(name), logger).read().offset,
    reader: (options) => {
      const consumer = new InboxConsumer({
        paths,
        name: options.name,
        logger,
        ...(options.isHandled ? { isHandled: options.isHandled } : {}),
        ...(options.cursor === 'lead-agent' ? { cursorFile: paths.leadAgentCursor } : {}),
      });
      return {
        read: async () => consumer.read(),
        commit: async (batch) => consumer.commit(batch),
        position: () => consumer.position(),
      };
    },
  };
}

const TAIL_BYTES = 64 * 1024;

/** The newest messages across every inbox, reading only the tail of each file. */
function latestMessages(paths: StatePaths, count: number): Message[] {
  let names: string[];
  try {
    names = fs.readdirSync(paths.inboxDir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const all: Message[] = [];
  for (const name of names) {
    const file = `${paths.inboxDir}/${name}`;
    const size = fs.statSync(file).size;
    const read = readInboxFrom(file, Math.max(0, size - TAIL_BYTES));
    all.push(...read.messages.map((m) => m.message));
  }
  return all.sort((a, b) => a.timestamp.localeCompare(b.timestamp)).slice(-count);
}
