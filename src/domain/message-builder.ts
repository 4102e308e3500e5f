import { TeamdError } from '../errors.js';
import { parseName } from '../contracts/names.js';
import { LEAD } from '../contracts/roster.js';
import type { Outgoing } from '../contracts/mail-store.js';
import {
  MAX_CONTENT_BYTES,
  MAX_LINE_BYTES,
  isProtocol,
  serializeMessage,
  messageSchema,
  RESPONSE_TYPES,
  type Message,
  GRANT_TYPES,
  type GrantSigner,
} from '../contracts/message.js';
import { isoTime } from '../platform/iso-time.js';
import { entropy } from '../platform/random-id.js';

export function newMessageId(): string {
  return entropy.uuid();
}

/**
 * A message as every store sends it: names and size checked, an id and a timestamp given, a grant
 * from the lead signed with the team's key, and the result parsed as an inbox line must parse.
 */
export function buildMessage(outgoing: Outgoing, at: { readonly now: Date; readonly key: GrantSigner }): Message {
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
    timestamp: isoTime(at.now),
    ...(isProtocol(type) ? { requestId: outgoing.requestId ?? newMessageId() } : {}),
    ...(outgoing.approve === undefined ? {} : { approve: outgoing.approve }),
  };
  // Only the person's and the daemon's runtimes send as the lead: their grants carry the signature teammates check.
  const signed = from === LEAD && GRANT_TYPES.includes(type) ? { ...raw, sig: at.key.sign(raw) } : raw;
  const parsed = messageSchema.safeParse(signed);
  if (!parsed.success) {
    throw new TeamdError('INVALID_INPUT', `invalid message: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  if (Buffer.byteLength(serializeMessage(parsed.data), 'utf8') > MAX_LINE_BYTES) {
    throw new TeamdError('MESSAGE_TOO_LARGE', `the encoded message is over ${MAX_LINE_BYTES} bytes (content with many escaped characters); shorten it`);
  }
  return parsed.data;
}
