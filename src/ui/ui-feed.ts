import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import type { Bell } from '../contracts/team-store.js';
import { deltaOf, type UiState } from './ui-state.js';
import type { ReadKind } from './ui-board-reader.js';

export interface UiFeedDeps {
  /** The state as it is now (a read of the board, the roster and the inboxes): ui-board-reader.ts says what each kind reads. */
  readonly take: (kind: ReadKind) => Promise<UiState>;
  /** Rings when the board, the roster or an inbox changed (and every few seconds, for what the OS did not report). */
  readonly bell: Bell;
  readonly logger: Logger;
  /** At most one read of the state this often, however fast the team writes: a busy board is one read, not a read per file. */
  readonly minGapMs?: number;
  /** A comment line this often keeps proxies and the browser from closing an idle stream. */
  readonly keepAliveMs?: number;
}

/**
 * The page's live view (server-sent events): a new page gets the whole state once, then only
 * what changed (ui-state.ts, deltaOf). One read of the state serves every page open on it.
 */
export class UiFeed {
  private readonly clients = new Set<ServerResponse>();
  private state: UiState | null = null;
  private readonly stopper = new AbortController();
  private readonly loop: Promise<void>;
  private readonly keepAlive: NodeJS.Timeout;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: UiFeedDeps) {
    this.loop = this.run();
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), deps.keepAliveMs ?? 20_000);
    this.keepAlive.unref();
  }

  /** A page opens the stream: it gets the state as it is, then the changes. */
  async join(response: ServerResponse): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    let closed = false;
    response.on('close', () => {
      closed = true;
      this.clients.delete(response);
    });
    // One read at a time: a page gets its snapshot, then exactly the changes after it.
    await this.serially(async () => {
      try {
        this.state ??= await this.deps.take('fresh');
        response.write(event('snapshot', this.state));
        if (!closed) this.clients.add(response);
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'the dashboard could not read the team');
        response.end(event('problem', { message: error instanceof Error ? error.message : String(error) }));
      }
    });
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.stopper.abort();
    clearInterval(this.keepAlive);
    for (const client of this.clients) client.end();
    this.clients.clear();
    await this.loop;
  }

  /** Reads the state after every ring, at most once per minGapMs, and sends each page what changed. */
  private async run(): Promise<void> {
    const gap = this.deps.minGapMs ?? 150;
    const { signal } = this.stopper;
    while (!signal.aborted) {
      const reason = await this.deps.bell.wait(signal).catch(() => 'aborted' as const);
      if (signal.aborted || reason === 'aborted') return;
      if (this.clients.size === 0) {
        // Nobody watches: the next page reads the state afresh.
        this.state = null;
        continue;
      }
      await this.serially(async () => {
        try {
          const next = await this.deps.take(reason === 'change' ? 'change' : 'rescan');
          const delta = this.state ? deltaOf(this.state, next) : null;
          if (!this.state) this.write(event('snapshot', next));
          else if (delta) this.write(event('change', delta));
          this.state = next;
        } catch (error) {
          this.deps.logger.warn({ err: error }, 'the dashboard could not read the team');
        }
      });
      await sleep(gap, undefined, { signal }).catch(() => undefined);
    }
  }

  private write(text: string): void {
    for (const client of this.clients) client.write(text);
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
