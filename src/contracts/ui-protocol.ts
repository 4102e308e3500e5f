import * as z from './zod-mini.js';
import { MAX_CONTENT_BYTES } from './message.js';
import { nameSchema } from './names.js';
import { taskIdSchema } from './task.js';

/** What the dashboard's page asks of its server (src/ui/ui-actions.ts): one JSON body per POST, at most this big. */
export const MAX_UI_BODY_BYTES = MAX_CONTENT_BYTES + 4096;

/** POST /api/answer: approve or reject a waiting plan or permission request, as `teamd approve` / `reject` do. */
export const uiAnswerSchema = z.strictObject({
  requestId: z.string().check(z.minLength(1), z.maxLength(128)),
  approve: z.boolean(),
  feedback: z.optional(z.string().check(z.maxLength(4096))),
  /** Also add the prefix rule (`teamd approve --always`). */
  always: z.optional(z.boolean()),
});
export type UiAnswer = z.infer<typeof uiAnswerSchema>;

/** POST /api/send: a message from the person, written as the lead (`teamd send`). */
export const uiSendSchema = z.strictObject({
  to: nameSchema,
  content: z.string().check(z.minLength(1), z.maxLength(MAX_CONTENT_BYTES)),
});
export type UiSend = z.infer<typeof uiSendSchema>;

/** POST /api/merge: merge a done task's worktree branch (`teamd merge`). */
export const uiMergeSchema = z.strictObject({ task: taskIdSchema });
export type UiMerge = z.infer<typeof uiMergeSchema>;
