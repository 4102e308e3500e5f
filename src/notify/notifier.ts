import { setTimeout as delay } from 'node:timers/promises';
import type { Notice, NotificationsSetting } from '../contracts/notifications.js';
import type { Bell, TeamStore } from '../contracts/team-store.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { isoTime } from '../platform/iso-time.js';
import { NoticeFinder, type FinderView } from './notice-finder.js';
import { NoticeLedger } from './notice-ledger.js';
import { describeTarget, fetchPost, sendNotice, type Post } from './webhook.js';

export interface NotifierDeps {
  readonly store: Pick<TeamStore, 'board' | 'mail' | 'bell'>;
  readonly paths: StatePaths;
  readonly logger: Logger;
  /** The team's name, in every notice a webhook gets. */
  readonly team: string;
  /** The `notifications` setting as it is now (its defaults when the settings have none). */
  readonly setting: () => NotificationsSetting;
  readonly view: () => FinderView;
  /** Whether this daemon tells of a notice (a shared store: the host of the teammate it is about); false leaves it to another host. */
  readonly owns: (notice: Notice) => Promise<boolean>;
  /** The Notification hooks for a notice (notice-hooks.ts). */
  readonly hooks: { run(notice: Notice): Promise<void>; close(): Promise<void> };
  readonly post?: Post;
  readonly now?: () => number;
}

/** How often the notifier looks though nothing rang (a change its bell missed): notices are minutes-scale news, a look costs a few reads. */
const SAFETY_LOOK_MS = 30_000;

/**
 * The daemon's notifications: at each change of the board or the inboxes it looks for news
 * (notice-finder.ts), writes each new notice to the ledger, then sends it to each webhook whose
 * events take it, in order per webhook, each with bounded tries (webhook.ts), and runs the
 * Notification hooks. A webhook that gave up on a notice gets one try per notice until one goes
 * through, so a receiver that is down cannot hold the next notices for long. Sending still under
 * way when the daemon stops is taken up at its next start.
 */
export class Notifier {
  private readonly abort = new AbortController();
  private readonly ledger: NoticeLedger;
  private readonly finder: NoticeFinder;
  private readonly queues = new Map<number, Promise<void>>();
  private readonly down = new Set<number>();
  private readonly elsewhere = new Set<string>();
  private readonly hooksRunning = new Set<Promise<void>>();
  private bell: Bell | null = null;
  private loop: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: NotifierDeps) {
    this.ledger = new NoticeLedger(deps.paths.notifications, deps.logger);
    this.finder = new NoticeFinder({ store: deps.store, paths: deps.paths, view: deps.view, ...(deps.now ? { now: deps.now } : {}) });
  }

  async start(): Promise<void> {
    const unsent = this.ledger.load();
    await this.finder.start();
    for (const { notice, target } of unsent) this.enqueue(notice, target);
    const bell = await this.deps.store.bell({ team: true, done: true }, { rescanMs: SAFETY_LOOK_MS });
    this.bell = bell;
    const signal = this.abort.signal;
    this.loop = (async () => {
      while (!signal.aborted) {
        await this.lookOnce().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'could not look for notices; looking again at the next change'));
        if ((await bell.wait(signal)) === 'aborted') break;
      }
    })();
  }

  async close(): Promise<void> {
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.bell?.close();
    await this.loop;
    await Promise.all([...this.queues.values(), ...this.hooksRunning]);
    await this.deps.hooks.close();
  }

  private async lookOnce(): Promise<void> {
    const look = await this.finder.look();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (look.lookAgainAt !== null) {
      const bell = this.bell;
      this.timer = setTimeout(() => bell?.ring('rescan'), Math.max(0, look.lookAgainAt - (this.deps.now ?? Date.now)()) + 10);
    }
    for (const notice of look.notices) {
      if (this.ledger.has(notice.key) || this.elsewhere.has(notice.key) || this.abort.signal.aborted) continue;
      if (!(await this.deps.owns(notice))) {
        this.elsewhere.add(notice.key);
        continue;
      }
      const setting = this.deps.setting();
      const targets = setting.webhooks.flatMap((webhook, index) => (!webhook.events || webhook.events.includes(notice.kind) ? [index] : []));
      this.ledger.found(notice, targets);
      this.deps.logger.info({ notice: notice.key, kind: notice.kind, webhooks: targets.length }, `notice: ${notice.title}`);
      for (const target of targets) this.enqueue(notice, target);
      const hooks = this.deps.hooks.run(notice).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'a Notification hook could not run'));
      this.hooksRunning.add(hooks);
      void hooks.finally(() => this.hooksRunning.delete(hooks));
    }
  }

  private enqueue(notice: Notice, target: number): void {
    const before = this.queues.get(target) ?? Promise.resolve();
    const next = before.then(() => this.deliver(notice, target));
    this.queues.set(target, next);
  }

  private async deliver(notice: Notice, target: number): Promise<void> {
    const signal = this.abort.signal;
    if (signal.aborted) return;
    const setting = this.deps.setting();
    const webhook = setting.webhooks[target];
    const at = (): string => isoTime(new Date((this.deps.now ?? Date.now)()));
    if (!webhook) {
      this.ledger.ended(notice.key, target, { ok: false, attempts: 0, error: 'the webhook is no longer in the settings' }, at());
      return;
    }
    const outcome = await sendNotice(webhook, notice, {
      attempts: this.down.has(target) ? 1 : setting.attempts,
      timeoutMs: setting.timeoutMs,
      signal,
      post: this.deps.post ?? fetchPost,
      sleep: (ms, stop) => delay(ms, undefined, { signal: stop }),
      team: this.deps.team,
    });
    // Stopped mid-way: the ledger still has it unsent, for the next start.
    if (outcome.interrupted) return;
    this.ledger.ended(notice.key, target, outcome, at());
    const log = { notice: notice.key, webhook: describeTarget(webhook.url), attempts: outcome.attempts };
    if (outcome.ok) {
      this.down.delete(target);
      this.deps.logger.info(log, 'notice sent');
    } else {
      this.down.add(target);
      this.deps.logger.warn({ ...log, error: outcome.error }, 'a webhook did not take a notice; gave up on it');
    }
  }
}
