import * as z from 'zod';
import { nameSchema } from '../names.js';
import { roleSchema, teammateNameSchema } from '../roster/roster.js';

/** One JSON line from the CLI to the daemon over run/daemon.sock; one JSON line back. */
export const controlRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('ping') }),
  z.object({
    op: z.literal('spawn'),
    name: teammateNameSchema,
    role: roleSchema,
    prompt: z
      .string()
      .max(64 * 1024)
      .optional(),
    model: z.string().min(1).max(128).optional(),
    plan: z.boolean().optional(),
    budgetTokens: z.number().int().positive().optional(),
  }),
  /** Starts the lead agent (the member `lead`) unless it runs already. */
  z.object({
    op: z.literal('lead'),
    model: z.string().min(1).max(128).optional(),
    budgetTokens: z.number().int().positive().optional(),
    prompt: z
      .string()
      .max(64 * 1024)
      .optional(),
  }),
  z.object({ op: z.literal('shutdown'), name: nameSchema, force: z.boolean() }),
  z.object({ op: z.literal('stop') }),
  /** A teammate's token budget, or the team's (name null); wakes whoever stopped for a budget. */
  z.object({ op: z.literal('budget'), name: nameSchema.nullable(), tokens: z.number().int().positive() }),
]);
export type ControlRequest = z.infer<typeof controlRequestSchema>;

export const controlResponseSchema = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
]);
export type ControlResponse = z.infer<typeof controlResponseSchema>;

export const MAX_CONTROL_LINE_BYTES = 256 * 1024;
