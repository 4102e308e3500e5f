import type { Logger } from '../logger.js';
import type { StatePaths } from '../paths.js';
import { InboxConsumer } from '../inbox/consumer.js';
import { readInboxFrom } from '../inbox/inbox-file.js';
import type { Mailbox } from '../inbox/mailbox.js';
import type { MailStore } from './mail-store.js';

/** The file store's mailboxes (one append-only JSONL file per recipient) behind the MailStore interface. */
export function fileMailStore(deps: { readonly paths: StatePaths; readonly mailbox: Mailbox; readonly logger: Logger }): MailStore {
  const { paths, mailbox, logger } = deps;
  return {
    recipients: async () => mailbox.recipients(),
    send: async (outgoing) => mailbox.send(outgoing),
    broadcast: async (outgoing) => mailbox.broadcast(outgoing),
    inbox: async (name, from = 0) => {
      const read = readInboxFrom(paths.inboxFile(name), from);
      for (const line of read.skipped) logger.warn({ file: paths.inboxFile(name), ...line }, 'inbox line skipped');
      return { messages: read.messages.map((parsed) => parsed.message), next: read.end };
    },
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
