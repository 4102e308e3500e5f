import { isTeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { HostAnswer, HostRegistry, HostRequest } from '../contracts/host-registry.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { within } from '../platform/within.js';

/** How long closing waits for a pass under way. */
const CLOSE_WAIT_MS = 1_000;

/**
 * Answers what other hosts ask this host's daemon through the shared store: spawn a teammate
 * here, stop one of the teammates here. One pass at a time; a pass asked for while one runs is
 * run once after it. The supervisor checks each request as it checks the same command given here.
 */
export class HostRequests {
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(
    private readonly hosts: HostRegistry,
    private readonly host: string,
    private readonly supervisor: Pick<Supervisor, 'spawn' | 'shutdown'>,
    private readonly logger: Logger,
  ) {}

  serve(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      if (this.again && !this.closed) {
        this.again = false;
        this.serve();
      }
    });
  }

  /** No more passes; one under way is waited for a little (a store on a dead link would hold it for the query timeout). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running) await within(this.running, CLOSE_WAIT_MS);
  }

  private async pass(): Promise<void> {
    try {
      const answered = await this.hosts.take(this.host, (request) => this.answer(request));
      if (answered > 0) this.logger.info({ answered }, "answered other hosts' requests");
    } catch (error) {
      this.logger.warn({ err: error }, "could not read other hosts' requests; trying again at the next beat");
    }
  }

  private async answer(request: HostRequest): Promise<HostAnswer> {
    this.logger.info({ request }, 'request from another host');
    try {
      const result =
        request.op === 'spawn'
          ? await this.supervisor.spawn({
              name: request.name,
              role: request.role,
              prompt: request.prompt,
              model: request.model,
              plan: request.plan,
              budgetTokens: request.budgetTokens,
            })
          : await this.supervisor.shutdown(request.name, request.force);
      return { ok: true, result };
    } catch (error) {
      if (isTeamdError(error)) return { ok: false, code: error.code, message: error.message };
      this.logger.error({ err: error, request }, "another host's request failed");
      return { ok: false, code: 'IO', message: `the daemon of ${this.host} failed: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}
