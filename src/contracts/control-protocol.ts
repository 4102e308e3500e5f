import * as z from './zod-mini.js';
import { nameSchema } from './names.js';
import { roleSchema, teammateNameSchema } from './roster.js';

/** One JSON line from the CLI to the daemon over run/daemon.sock; one JSON line back. */
export const controlRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('ping') }),
  z.object({
    op: z.literal('spawn'),
    name: teammateNameSchema,
    role: roleSchema,
    prompt: z.optional(z.string().check(z.maxLength(64 * 1024))),
    model: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
    plan: z.optional(z.boolean()),
    budgetTokens: z.optional(z.number().check(z.int(), z.positive())),
  }),
  /** Starts the lead agent (the member `lead`) unless it runs already. */
  z.object({
    op: z.literal('lead'),
    model: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
    budgetTokens: z.optional(z.number().check(z.int(), z.positive())),
    prompt: z.optional(z.string().check(z.maxLength(64 * 1024))),
  }),
  z.object({ op: z.literal('shutdown'), name: nameSchema, force: z.boolean() }),
  z.object({ op: z.literal('stop') }),
  /** The address of the dashboard the daemon serves (the `ui` setting), token included; the socket is its owner's alone. */
  z.object({ op: z.literal('ui') }),
  /** A teammate's token budget, or the team's (name null); wakes whoever stopped for a budget. */
  z.object({ op: z.literal('budget'), name: z.nullable(nameSchema), tokens: z.number().check(z.int(), z.positive()) }),
]);
export type ControlRequest = z.infer<typeof controlRequestSchema>;

export const controlResponseSchema = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
]);
export type ControlResponse = z.infer<typeof controlResponseSchema>;

export const MAX_CONTROL_LINE_BYTES = 256 * 1024;
