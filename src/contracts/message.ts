import * as z from './zod-mini.js';
import { nameSchema } from './names.js';

export const MESSAGE_TYPES = [
  'message',
  'broadcast',
  'shutdown_request',
  'shutdown_response',
  'plan_approval_request',
  'plan_approval_response',
  'permission_request',
  'permission_response',
  'task_completed',
  'task_failed',
  'teammate_idle',
  'teammate_crashed',
  /** Sent by the daemon's scheduler when a cron or one-shot job comes due (teamd cron). */
  'scheduled',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** Request/response pairs: they carry a requestId; a response also says whether it approves. */
export const REQUEST_TYPES: readonly MessageType[] = ['shutdown_request', 'plan_approval_request', 'permission_request'];
export const RESPONSE_TYPES: readonly MessageType[] = ['shutdown_response', 'plan_approval_response', 'permission_response'];

/** Content is limited in UTF-8 bytes; the whole line (after JSON escaping) separately. */
export const MAX_CONTENT_BYTES = 256 * 1024;
export const MAX_LINE_BYTES = 2 * 1024 * 1024;

export const messageSchema = z
  .looseObject({
    id: z.string().check(z.minLength(1), z.maxLength(128)),
    type: z.enum(MESSAGE_TYPES),
    from: nameSchema,
    to: nameSchema,
    content: z.string(),
    timestamp: z.iso.datetime({ offset: true }),
    requestId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
    approve: z.optional(z.boolean()),
  })
  .check(
    z.refine((message) => !isProtocol(message.type) || message.requestId !== undefined, {
      message: 'shutdown and plan approval messages carry a requestId',
      path: ['requestId'],
    }),
    z.refine((message) => !RESPONSE_TYPES.includes(message.type) || message.approve !== undefined, {
      message: 'a response says whether it approves',
      path: ['approve'],
    }),
  );

export type Message = z.infer<typeof messageSchema>;

export function isProtocol(type: MessageType): boolean {
  return REQUEST_TYPES.includes(type) || RESPONSE_TYPES.includes(type);
}

/**
 * One inbox line. `id` is written first: readers find the start of a record by `{"id":"`,
 * which cannot occur unescaped inside a JSON string.
 */
export function serializeMessage(message: Message): string {
  const { id, ...rest } = message;
  return `${JSON.stringify({ id, ...rest })}\n`;
}

export const RECORD_START = '{"id":"';

/** Messages that grant something: honoured only with the person's or the daemon's signature. */
export const GRANT_TYPES: readonly MessageType[] = ['plan_approval_response', 'shutdown_request', 'permission_response'];

/** What signs a grant from the lead (the team's protocol key): the signature travels in the message as `sig`. */
export interface GrantSigner {
  sign(message: Pick<Message, 'id' | 'type' | 'from' | 'to' | 'content' | 'requestId' | 'approve'>): string;
}
