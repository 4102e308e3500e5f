import * as z from './zod-mini.js';

/** How far a reader has consumed its inbox: a byte offset (a sequence number in PostgreSQL) and the last id handled. */
export const cursorSchema = z.looseObject({
  offset: z.number().check(z.int(), z.nonnegative()),
  lastId: z.nullable(z.string()),
  updatedAt: z.optional(z.iso.datetime({ offset: true })),
});

export type Cursor = z.infer<typeof cursorSchema>;

export const START_CURSOR: Cursor = { offset: 0, lastId: null };
