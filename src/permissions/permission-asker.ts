import type { MailStore } from '../contracts/mail-store.js';
import type { Message } from '../contracts/message.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { LEAD } from '../contracts/roster.js';
import { boundedInput } from '../text.js';

/** What the lead is asked about, in the request's `extra` (teamd plans and approve show it). */
export interface PermissionQuestion {
  readonly tool: string;
  readonly input: unknown;
  readonly taskId: number | null;
  readonly why: string;
}

export interface PermissionAnswer {
  readonly allow: boolean;
  readonly reason: string;
  /** Who answered: the lead, or the timeout (then the configured decision applied). */
  readonly by: 'lead' | 'timeout' | 'stopped';
}

export interface AskerDeps {
  readonly name: string;
  readonly paths: StatePaths;
  readonly mailbox: MailStore;
  readonly verifyGrant: (message: Message) => boolean;
  /** Resolves when the teammate's inbox may have changed (its doorbell), or the wait is over. */
  readonly waitForInbox: (signal: AbortSignal, timeoutMs: number) => Promise<void>;
  /** The teammate shows `waiting-permission` while it waits, and goes back after. */
  readonly waiting: (on: boolean) => void;
  readonly logger: Logger;
}

/**
 * Asks the lead whether a call may run: a `permission_request` in the lead's inbox, then a wait
 * for the lead's signed `permission_response` in the teammate's own inbox (read directly from
 * the offset the request was sent at; the intake skips it later), until the timeout, after which
 * the configured decision applies.
 */
export class PermissionAsker {
  constructor(private readonly deps: AskerDeps) {}

  async ask(question: PermissionQuestion, timeoutMs: number, onTimeout: 'allow' | 'deny', signal: AbortSignal): Promise<PermissionAnswer> {
    const { deps } = this;
    const from = await deps.mailbox.end(deps.name);
    const request = await deps.mailbox.send({
      from: deps.name,
      to: LEAD,
      type: 'permission_request',
      content: `${deps.name} asks to run ${question.tool}: ${summary(question.input)} (${question.why})`,
      // A whole file in a write_file call would make the message too large: the lead sees a bounded head and tail.
      extra: { tool: question.tool, input: boundedInput(question.input), ...(question.taskId === null ? {} : { taskId: question.taskId }) },
    });
    const requestId = request.requestId!;
    deps.logger.info({ requestId, tool: question.tool, taskId: question.taskId, why: question.why }, 'asked the lead for permission');
    const deadline = Date.now() + timeoutMs;
    deps.waiting(true);
    try {
      for (;;) {
        const answer = await this.answerIn(from, requestId);
        if (answer) return answer;
        if (signal.aborted) return { allow: false, reason: 'the teammate is stopping', by: 'stopped' };
        const left = deadline - Date.now();
        if (left <= 0) {
          return {
            allow: onTimeout === 'allow',
            reason: `no answer from the lead within ${Math.round(timeoutMs / 1000)} s; the configured decision (${onTimeout}) applied`,
            by: 'timeout',
          };
        }
        await deps.waitForInbox(signal, left);
      }
    } finally {
      deps.waiting(false);
    }
  }

  private async answerIn(from: number, requestId: string): Promise<PermissionAnswer | null> {
    for (const message of (await this.deps.mailbox.inbox(this.deps.name, from)).messages) {
      if (message.type !== 'permission_response' || message.requestId !== requestId || message.from !== LEAD) continue;
      if (!this.deps.verifyGrant(message)) {
        this.deps.logger.warn({ messageId: message.id, requestId }, 'ignored an unsigned or forged permission answer');
        continue;
      }
      return { allow: message.approve === true, reason: message.content, by: 'lead' };
    }
    return null;
  }
}

function summary(input: unknown): string {
  const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const text = typeof record.command === 'string' ? record.command : typeof record.path === 'string' ? record.path : JSON.stringify(input);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
