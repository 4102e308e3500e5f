import * as z from './zod-mini.js';

/** What the person is told of: a request that waits for them, a failed task, a board that cannot move, the lead's final report on a goal. */
export const NOTICE_KINDS = ['request', 'task_failed', 'board_stuck', 'final_report'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/**
 * One thing the person should hear of: `key` names it once for ever (a request's id, a task and
 * its claim, a report's message id), so it is sent once whatever restarts.
 */
export const noticeSchema = z.object({
  key: z.string().check(z.minLength(1), z.maxLength(200)),
  kind: z.enum(NOTICE_KINDS),
  at: z.string(),
  /** One line: what happened. */
  title: z.string(),
  /** A few lines more (the plan, the reason, the report), cut to a size a chat shows. */
  text: z.string(),
  teammate: z.nullable(z.string()),
  task: z.nullable(z.number().check(z.int())),
  /** A request's id and kind: `teamd approve <id>` answers it. */
  request: z.optional(z.object({ id: z.string(), kind: z.enum(['plan', 'permission']) })),
});
export type Notice = z.infer<typeof noticeSchema>;

const webhookSchema = z.strictObject({
  /** An http(s) URL; a Slack incoming webhook's URL is a secret: it is never logged, only its host. */
  url: z.string().check(z.maxLength(2048), z.regex(/^https?:\/\/[^\s/]+/, { message: 'must be an http:// or https:// URL' })),
  /** `json`: the notice as it is (noticeSchema, plus `team`); `slack`: `{"text": …}`, as Slack's incoming webhooks (and Mattermost's, Discord's /slack) read it. */
  format: z._default(z.enum(['json', 'slack']), 'json'),
  /** Only these kinds; absent: every kind. */
  events: z.optional(z.array(z.enum(NOTICE_KINDS)).check(z.minLength(1), z.maxLength(NOTICE_KINDS.length))),
  /** Headers sent with each POST (an Authorization the receiver wants). */
  headers: z._default(z.record(z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/)), z.string().check(z.maxLength(4096))), {}),
});
export type WebhookTarget = z.infer<typeof webhookSchema>;

/** The `notifications` setting: where notices go, and when a board counts as stuck. */
export const notificationsSettingSchema = z.strictObject({
  webhooks: z._default(z.array(webhookSchema).check(z.maxLength(16)), []),
  /** Ready tasks that nobody has taken for this long, with nothing in progress, make the board stuck (a board that cannot move at all is stuck at once). */
  stuckAfterMs: z._default(z.number().check(z.int(), z.gte(1_000), z.lte(86_400_000)), 15 * 60_000),
  /** Tries per notice and webhook (the first included), waiting 1 s, 2 s, 4 s … (at most 5 min, or the receiver's Retry-After up to that) between them. */
  attempts: z._default(z.number().check(z.int(), z.gte(1), z.lte(20)), 6),
  /** One POST that has not answered after this long is a failed try. */
  timeoutMs: z._default(z.number().check(z.int(), z.gte(100), z.lte(120_000)), 10_000),
});
export type NotificationsSetting = z.infer<typeof notificationsSettingSchema>;

/** A line of `notifications.jsonl`: a notice found (then sent to each webhook named), or how its sending to one ended. */
export const noticeLineSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('notice'), notice: noticeSchema, targets: z.array(z.number().check(z.int())) }),
  z.object({
    type: z.literal('sent'),
    key: z.string(),
    target: z.number().check(z.int()),
    at: z.string(),
    ok: z.boolean(),
    attempts: z.number().check(z.int()),
    error: z.optional(z.string()),
  }),
]);
export type NoticeLine = z.infer<typeof noticeLineSchema>;
