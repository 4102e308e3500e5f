import * as z from 'zod';
import { storeEventSchema } from './team-store.js';

/** Worker -> daemon, over the fork IPC channel. */
export const workerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({
    type: z.literal('status'),
    /** waiting-plan: it holds a task and waits for the lead to answer its plan (not free for other work). */
    status: z.enum(['working', 'idle', 'waiting-plan', 'waiting-permission']),
    task: z.number().int().positive().nullable(),
    /** Why it cannot work right now (a model outage), and when it tries again. */
    problem: z.string().max(1000).nullable().optional(),
    retryAt: z.iso.datetime({ offset: true }).nullable().optional(),
    /** Wake-ups so far (not counting safety re-checks): a report follows every wake, so the daemon knows a bell was answered. */
    wakes: z.number().int().nonnegative().optional(),
  }),
  /** The model cannot be used (key refused, unknown model): it exits 0 next and must not be restarted. */
  z.object({ type: z.literal('errored'), reason: z.string().max(2000) }),
  /** Its token budget (or the team's) is spent: it exits 0 next and is not woken until the budget is raised. */
  z.object({ type: z.literal('budget'), reason: z.string().max(2000) }),
  /** Idle timeout reached: the worker exits 0 next, and should be woken when work appears. */
  z.object({ type: z.literal('asleep') }),
  /** It answered a shutdown request and exits 0 next. */
  z.object({ type: z.literal('shutting-down') }),
  /** It gave a task back (or refused it) and will not take it again: the daemon wakes it for no such task. */
  z.object({ type: z.literal('declined'), task: z.number().int().positive() }),
  /** Requests of its commands the network proxy refused since its last report (teamd status adds them up). */
  z.object({ type: z.literal('network'), refused: z.number().int().positive() }),
  z.object({
    type: z.literal('usage'),
    usage: z.object({
      inputTokens: z.number().nonnegative(),
      outputTokens: z.number().nonnegative(),
      cacheReadTokens: z.number().nonnegative(),
      cacheWriteTokens: z.number().nonnegative(),
    }),
  }),
]);
export type WorkerMessage = z.infer<typeof workerMessageSchema>;

/** Daemon -> worker. */
export const daemonMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('shutdown'), reason: z.string() }),
  /** Ready work appeared that this idle teammate can take; `task` is the one the daemon saw first (a hint: claim it or any other). */
  z.object({ type: z.literal('wake'), task: z.number().int().positive().nullable() }),
  /**
   * A change the daemon heard of in a store with notifications (PostgreSQL), relayed so that a
   * host keeps one listening connection: a message to this teammate, or null when changes may
   * have been missed (the daemon's listening connection is back after a loss: look again).
   */
  z.object({ type: z.literal('store-event'), event: storeEventSchema.nullable() }),
  /** Its host had been counted lost, and its tasks given back: a task it holds may be someone else's now, so it looks. */
  z.object({ type: z.literal('recheck-claim') }),
]);
export type DaemonMessage = z.infer<typeof daemonMessageSchema>;
