import { TeamdError } from '../errors.js';
import { appendRecordSync } from '../fs/append-record.js';
import type { Logger } from '../logger.js';
import { parseName } from '../names.js';
import { GRANT_TYPES, ProtocolKey } from './protocol-key.js';
import type { StatePaths } from '../paths.js';
import { LEAD, memberNames, readConfig, USER } from '../roster/roster.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import {
  MAX_CONTENT_BYTES,
  MAX_LINE_BYTES,
  isProtocol,
  messageSchema,
  newMessageId,
  RESPONSE_TYPES,
  serializeMessage,
  type Message,
  type MessageType,
} from './message.js';

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

  private build(outgoing: Outgoing): Message {
    const from = parseName(outgoing.from, 'sender');
    const to = parseName(outgoing.to, 'recipient');
    const type = outgoing.type ?? 'message';
    const bytes = Buffer.byteLength(outgoing.content, 'utf8');
    if (bytes > MAX_CONTENT_BYTES) {
      throw new TeamdError(
        'MESSAGE_TOO_LARGE',
        `message content is ${bytes} bytes; the limit is ${MAX_CONTENT_BYTES} (256 KiB). Write long content to a file in the workspace and send its path`,
        { details: { bytes, max: MAX_CONTENT_BYTES } },
      );
    }
    if (RESPONSE_TYPES.includes(type) && outgoing.approve === undefined) {
      throw new TeamdError('INVALID_INPUT', `a ${type} must say whether it approves`);
    }
    const raw = {
      ...outgoing.extra,
      id: newMessageId(),
      type,
      from,
      to,
      content: outgoing.content,
      timestamp: this.now().toISOString(),
      ...(isProtocol(type) ? { requestId: outgoing.requestId ?? newMessageId() } : {}),
      ...(outgoing.approve === undefined ? {} : { approve: outgoing.approve }),
    };
    // Only the person's and the daemon's runtimes send as the lead: their grants carry the signature teammates check.
    const signed = from === LEAD && GRANT_TYPES.includes(type) ? { ...raw, sig: this.key.sign(raw) } : raw;
    const parsed = messageSchema.safeParse(signed);
    if (!parsed.success) {
      throw new TeamdError('INVALID_INPUT', `invalid message: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
    }
    return parsed.data;
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
    if (Buffer.byteLength(line, 'utf8') > MAX_LINE_BYTES) {
      throw new TeamdError('MESSAGE_TOO_LARGE', `the encoded message is over ${MAX_LINE_BYTES} bytes (content with many escaped characters); shorten it`);
    }
    ensurePrivateDir(this.paths.inboxDir);
    appendRecordSync(this.paths.inboxFile(message.to), line, { durable: this.durable });
    this.logger.info({ messageId: message.id, type: message.type, from: message.from, to: message.to }, 'message sent');
  }
}
