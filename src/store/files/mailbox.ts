import fs from 'node:fs';
import { TeamdError } from '../../errors.js';
import { appendRecordSync } from '../../fs/append-record.js';
import type { Logger } from '../../log/logger.js';
import { parseName } from '../../contracts/names.js';
import { ProtocolKey } from '../protocol-key.js';
import type { StatePaths } from '../../paths.js';
import { memberNames, readConfig } from '../../roster/roster.js';
import { LEAD, USER } from '../../contracts/roster.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { serializeMessage, type Message } from '../../contracts/message.js';
import { buildMessage } from '../../domain/message-builder.js';
import type { Outgoing } from '../../contracts/mail-store.js';

export interface MailboxDeps {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** fdatasync each append before reporting it sent (default true). */
  readonly durable?: boolean;
}

/** Sends messages: validates, then appends one whole line to the recipient's inbox. */
export class Mailbox {
  private readonly paths: StatePaths;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly durable: boolean;
  private readonly key: ProtocolKey;

  constructor(deps: MailboxDeps) {
    this.paths = deps.paths;
    this.key = new ProtocolKey(deps.paths.protocolKey);
    this.logger = deps.logger;
    this.now = deps.now ?? (() => new Date());
    this.durable = deps.durable ?? true;
  }

  /** Everyone who can receive: the lead, every member on the roster (the lead agent is the lead), and the person (`user`). */
  recipients(): string[] {
    return [...new Set([LEAD, ...memberNames(readConfig(this.paths.config)), USER])];
  }

  send(outgoing: Outgoing): Message {
    const message = this.build(outgoing);
    // The lead needs no roster: a damaged config.json must not silence the teammates.
    if (message.to !== LEAD && message.to !== USER) this.requireRecipient(message.to, this.recipients());
    this.append(message);
    return message;
  }

  /** One message to every recipient but the sender; each gets its own id. */
  broadcast(outgoing: Omit<Outgoing, 'to' | 'type'>): Message[] {
    const from = parseName(outgoing.from, 'sender');
    // The person hears from the lead agent, not every broadcast.
    const targets = this.recipients().filter((name) => name !== from && name !== USER);
    const messages = targets.map((to) => this.build({ ...outgoing, to, type: 'broadcast' }));
    for (const message of messages) this.append(message);
    return messages;
  }

  /** The inbox file exists (0600, empty if new): `tail -f` finds it before the first message. */
  openInbox(name: string): void {
    ensurePrivateDir(this.paths.inboxDir);
    fs.closeSync(fs.openSync(this.paths.inboxFile(name), 'a', 0o600));
  }

  private build(outgoing: Outgoing): Message {
    return buildMessage(outgoing, { now: this.now(), key: this.key });
  }

  private requireRecipient(to: string, recipients: readonly string[]): void {
    if (recipients.includes(to)) return;
    throw new TeamdError(
      'UNKNOWN_RECIPIENT',
      `no teammate named "${to}": recipients are ${recipients.join(', ')} (the roster is ${this.paths.config}). No mailbox was created`,
      { details: { to, recipients } },
    );
  }

  private append(message: Message): void {
    const line = serializeMessage(message);
    ensurePrivateDir(this.paths.inboxDir);
    appendRecordSync(this.paths.inboxFile(message.to), line, { durable: this.durable });
    this.logger.info({ messageId: message.id, type: message.type, from: message.from, to: message.to }, 'message sent');
  }
}
