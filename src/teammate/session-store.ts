import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { Logger } from '../logger.js';
import type { ChatMessage, Usage } from '../model/model-client.js';
import { ensurePrivateDir } from '../fs/private-dir.js';

/** A plan approval request this teammate sent, and the claim of the task it was for. */
export interface PlanRequest {
  requestId: string;
  task: number | null;
  claim: number | null;
  /** The lead answered it (approved or not). */
  answered: boolean;
}

export interface Session {
  messages: ChatMessage[];
  /** Inbox message ids already in the conversation: a restart drops them if re-read. */
  handled: string[];
  /** The one claim of one task whose plan the lead approved: a later task, or a new claim, needs its own. */
  approvedPlan: { task: number; claim: number } | null;
  /** Plan approval requests this teammate sent: a response must answer one of them. */
  planRequests: PlanRequest[];
  /** Tasks it gave back unfinished or refused: it does not claim them again. */
  gaveUp: number[];
  /** The budget whose exhaustion the lead was told of ("member:200000"): told once, whatever the restarts. */
  budgetNotice: string | null;
  usage: Usage;
}

const MAX_HANDLED = 10_000;

const headerSchema = z.object({
  teamdSession: z.literal(1),
  handled: z.array(z.string()),
  approvedPlan: z.object({ task: z.number().int().positive(), claim: z.number().int().nonnegative() }).nullable().default(null),
  // Sessions written before plans belonged to a task listed bare request ids: they approve nothing now.
  planRequests: z
    .array(
      z.union([
        z.string().transform((requestId) => ({ requestId, task: null, claim: null, answered: true })),
        z.object({ requestId: z.string(), task: z.number().nullable(), claim: z.number().nullable(), answered: z.boolean().default(false) }),
      ]),
    )
    .default([]),
  gaveUp: z.array(z.number().int().positive()).default([]),
  budgetNotice: z.string().nullable().default(null),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheWriteTokens: z.number() }),
});
const messageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.array(z.looseObject({ type: z.string() })) });

export function emptySession(): Session {
  return {
    messages: [],
    handled: [],
    approvedPlan: null,
    planRequests: [],
    gaveUp: [],
    budgetNotice: null,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  };
}

/**
 * `sessions/<name>.jsonl`: a header line, then one line per conversation message. Rewritten
 * whole (temp + rename) after every step, so a restarted teammate continues where it was.
 */
export class SessionStore {
  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {}

  load(): Session {
    let raw: string;
    try {
      raw = fs.readFileSync(this.file, 'utf8');
    } catch {
      return emptySession();
    }
    const [first, ...rest] = raw.split('\n').filter((line) => line.length > 0);
    try {
      const header = headerSchema.parse(JSON.parse(first ?? ''));
      const messages = rest.map((line) => messageSchema.parse(JSON.parse(line)) as ChatMessage);
      return {
        messages,
        handled: header.handled,
        approvedPlan: header.approvedPlan,
        planRequests: header.planRequests,
        gaveUp: header.gaveUp,
        budgetNotice: header.budgetNotice,
        usage: header.usage,
      };
    } catch (error) {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      fs.renameSync(this.file, aside);
      this.logger.error({ err: error, movedTo: aside }, 'session file unreadable; moved aside, starting a fresh conversation');
      return emptySession();
    }
  }

  save(session: Session): void {
    const handled = session.handled.slice(-MAX_HANDLED);
    const header = {
      teamdSession: 1,
      handled,
      approvedPlan: session.approvedPlan,
      planRequests: session.planRequests.slice(-100),
      gaveUp: session.gaveUp.slice(-1000),
      budgetNotice: session.budgetNotice,
      usage: session.usage,
    };
    const lines = [JSON.stringify(header), ...session.messages.map((message) => JSON.stringify(message))];
    ensurePrivateDir(path.dirname(this.file));
    writeFileAtomicSync(this.file, `${lines.join('\n')}\n`);
  }
}
