import type { InboxConsumer } from '../inbox/consumer.js';
import type { Mailbox } from '../inbox/mailbox.js';
import type { Message } from '../inbox/message.js';
import type { Logger } from '../logger.js';
import type { Doorbell } from '../watch/doorbell.js';
import type { DaemonLink } from './daemon-link.js';

export interface IdleRuntimeDeps {
  readonly name: string;
  readonly logger: Logger;
  readonly mailbox: Mailbox;
  readonly consumer: InboxConsumer;
  readonly bell: Doorbell;
  readonly link: DaemonLink;
  /** Idle this long with nothing to do: report asleep and end (0 = never). */
  readonly idleTimeoutMs: number;
  /** Handles a message that is not a shutdown request (the agent loop plugs in here). */
  readonly onMessage?: (message: Message) => Promise<void>;
}

export type RuntimeEnd = 'shutdown' | 'asleep' | 'stopped';

/**
 * A teammate's outer loop: read the inbox, handle what arrived, commit the cursor, then wait
 * for the doorbell — never polling. A shutdown request is answered and ends the loop; so does
 * the idle timeout and a stop from the daemon (IPC, SIGTERM).
 */
export class IdleRuntime {
  private readonly stopper = new AbortController();

  constructor(private readonly deps: IdleRuntimeDeps) {}

  /** Ends the loop after the current step (daemon IPC shutdown, SIGTERM). */
  stop(): void {
    this.stopper.abort();
  }

  async run(): Promise<RuntimeEnd> {
    const { link, consumer, logger } = this.deps;
    link.send({ type: 'ready' });
    link.send({ type: 'status', status: 'idle', task: null });
    let idleSince = Date.now();
    while (!this.stopper.signal.aborted) {
      const batch = consumer.read();
      for (const message of batch.messages) {
        if (message.type === 'shutdown_request') {
          consumer.commit(batch);
          this.answerShutdown(message);
          return 'shutdown';
        }
        await this.deps.onMessage?.(message);
        logger.info({ messageId: message.id, from: message.from, type: message.type }, 'message handled');
      }
      consumer.commit(batch);
      if (batch.messages.length > 0) idleSince = Date.now();
      const woke = await this.waitForWork(idleSince);
      if (woke === 'timeout') {
        link.send({ type: 'asleep' });
        return 'asleep';
      }
    }
    return 'stopped';
  }

  private answerShutdown(request: Message): void {
    this.deps.link.send({ type: 'shutting-down' });
    this.deps.mailbox.send({
      from: this.deps.name,
      to: request.from,
      type: 'shutdown_response',
      requestId: request.requestId,
      approve: true,
      content: `${this.deps.name} is shutting down.`,
    });
    this.deps.logger.info({ requestId: request.requestId }, 'shutdown approved');
  }

  private async waitForWork(idleSince: number): Promise<'work' | 'timeout'> {
    const timeoutMs = this.deps.idleTimeoutMs;
    if (timeoutMs === 0) {
      await this.deps.bell.wait(this.stopper.signal);
      return 'work';
    }
    const remaining = Math.max(0, idleSince + timeoutMs - Date.now());
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), remaining);
    const combined = AbortSignal.any([this.stopper.signal, timer.signal]);
    try {
      const reason = await this.deps.bell.wait(combined);
      return reason === 'aborted' && timer.signal.aborted && !this.stopper.signal.aborted ? 'timeout' : 'work';
    } finally {
      clearTimeout(timeout);
    }
  }
}
