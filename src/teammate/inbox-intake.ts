import { appendUser } from '../agent/conversation.js';
import { messageDirective, planAskedIn } from '../contracts/directives.js';
import type { InboxReader } from '../contracts/mail-store.js';
import type { Message } from '../contracts/message.js';
import type { Logger } from '../log/logger.js';
import type { PlanGate } from './plan-gate.js';
import type { Session } from './session-store.js';

export interface Intake {
  /** A signed shutdown request: the teammate answers it and ends. */
  readonly shutdown: Message | null;
  /** Something was put into the conversation for the model to answer. */
  readonly injected: boolean;
}

/**
 * Moves new inbox messages into the conversation, once each (their ids are remembered in the
 * session, saved before the cursor moves). Grants — plan answers, shutdown requests — count only
 * with the person's or the daemon's signature.
 */
export class InboxIntake {
  constructor(
    private readonly deps: {
      readonly name: string;
      readonly session: Session;
      readonly consumer: InboxReader;
      readonly plans: PlanGate;
      readonly verifyGrant: (message: Message) => boolean;
      /** Saves the session durably: on disk before the cursor moves past what it holds. */
      readonly save: () => void;
      /** When this process started: a shutdown request made before it was for an earlier process of this name. */
      readonly startedAt: number;
      readonly logger: Logger;
    },
  ) {}

  async take(): Promise<Intake> {
    const { consumer, session } = this.deps;
    const batch = await consumer.read();
    if (batch.messages.length === 0) return { shutdown: null, injected: false };
    const shutdown = batch.messages.find((m) => m.type === 'shutdown_request' && this.granted(m) && this.forThisProcess(m)) ?? null;
    // Messages beside a shutdown request still reach the saved conversation: none is lost.
    const injected = this.inject(batch.messages);
    session.handled.push(...batch.messages.map((m) => m.id));
    this.deps.save();
    await consumer.commit(batch);
    return { shutdown, injected };
  }

  private inject(messages: readonly Message[]): boolean {
    const blocks: { type: 'text'; text: string }[] = [];
    for (const message of messages) {
      if (message.type === 'plan_approval_response') {
        const text = this.granted(message) ? this.deps.plans.answer(message) : null;
        if (text === null)
          this.deps.logger.warn(
            { messageId: message.id, from: message.from },
            'ignored a plan answer that answers no open request of ours (unknown, or for a claim that is over)',
          );
        else blocks.push({ type: 'text', text });
      } else if (message.type === 'shutdown_request') {
        continue; // a signed one ends the teammate before injection; this one was forged (already logged)
      } else if (message.type === 'permission_response') {
        continue; // read by the call that asked, while it waited (permissions/permission-asker.ts)
      } else if (message.from !== this.deps.name) {
        const planFor = planAskedIn(message);
        if (planFor !== null) this.deps.plans.requireFor(planFor);
        blocks.push({ type: 'text', text: messageDirective(message) });
      }
    }
    if (blocks.length > 0) appendUser(this.deps.session.messages, blocks);
    return blocks.length > 0;
  }

  /**
   * A shutdown request made before this process started was for an earlier one (it stopped over
   * IPC before reading it): a teammate spawned again does not obey it.
   */
  private forThisProcess(message: Message): boolean {
    if (Date.parse(message.timestamp) >= this.deps.startedAt) return true;
    this.deps.logger.info({ messageId: message.id, at: message.timestamp }, 'ignored a shutdown request made to an earlier process of this teammate');
    return false;
  }

  /** A grant signed by the person or the daemon; anything else is logged and ignored. */
  private granted(message: Message): boolean {
    if (this.deps.verifyGrant(message)) return true;
    this.deps.logger.warn({ messageId: message.id, type: message.type, from: message.from }, 'ignored an unsigned or forged protocol message');
    return false;
  }
}
