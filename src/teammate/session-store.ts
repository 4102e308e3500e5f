import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { Logger } from '../logger.js';
import type { ChatMessage, Usage } from '../model/model-client.js';
import { ensurePrivateDir } from '../fs/private-dir.js';

export interface Session {
  messages: ChatMessage[];
  /** Inbox message ids already in the conversation: a restart drops them if re-read. */
  handled: string[];
  planApproved: boolean;
  /** Plan approval requests this teammate sent: a response must answer one of them. */
  planRequests: string[];
  usage: Usage;
}

const MAX_HANDLED = 10_000;

const headerSchema = z.object({
  teamdSession: z.literal(1),
  handled: z.array(z.string()),
  planApproved: z.boolean(),
  planRequests: z.array(z.string()).default([]),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheWriteTokens: z.number() }),
});
const messageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.array(z.looseObject({ type: z.string() })) });

export function emptySession(): Session {
  return {
    messages: [],
    handled: [],
    planApproved: false,
    planRequests: [],
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
      return { messages, handled: header.handled, planApproved: header.planApproved, planRequests: header.planRequests, usage: header.usage };
    } catch (error) {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      fs.renameSync(this.file, aside);
      this.logger.error({ err: error, movedTo: aside }, 'session file unreadable; moved aside, starting a fresh conversation');
      return emptySession();
    }
  }

  save(session: Session): void {
    const handled = session.handled.slice(-MAX_HANDLED);
    const header = { teamdSession: 1, handled, planApproved: session.planApproved, planRequests: session.planRequests.slice(-100), usage: session.usage };
    const lines = [JSON.stringify(header), ...session.messages.map((message) => JSON.stringify(message))];
    ensurePrivateDir(path.dirname(this.file));
    writeFileAtomicSync(this.file, `${lines.join('\n')}\n`);
  }
}
