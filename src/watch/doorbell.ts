import fs from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import type { Logger } from '../log/logger.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { touchRegular } from '../fs/open-regular.js';

import type { Bell, WakeReason } from '../contracts/team-store.js';

export type { WakeReason };

export interface DoorbellOptions {
  /**
   * Folders to watch (created if missing), with one plain inotify watch each: an event costs
   * the same whatever the folder holds. Only their direct entries count.
   */
  readonly dirs?: readonly string[];
  /**
   * Files to watch with chokidar (created empty if missing), one inotify watch each: an inbox.
   * chokidar is kept where it is cheap (a single file: one stat per event) and not for folders,
   * where it re-reads the whole folder on every event (docs/architecture.md, "Scale").
   */
  readonly files?: readonly string[];
  /** Which paths ring the bell; default: all but temp and lock files. */
  readonly accept?: (file: string) => boolean;
  /** A slow safety ring for events the OS dropped (inotify overflow is silent). 0: none. */
  readonly rescanMs?: number;
  /**
   * A hand ring (`ring()`) rings once more this long after the last one, for a caller that
   * rings on events which may come before the change is visible. Watch events never do: a
   * folder's plain watch and a file's raw events report every change.
   */
  readonly trailingMs?: number;
  readonly logger: Logger;
}

export const DEFAULT_RESCAN_MS = 5_000;
const DEFAULT_TRAILING_MS = 100;

/**
 * A wake-up for a waiting reader: wait() resolves once something changed since the previous
 * wait() returned. Treat a ring as "go and read to the end", never as "one new item".
 */
export class Doorbell implements Bell {
  private pending: 'change' | 'rescan' | null = null;
  private waiters: ((reason: WakeReason) => void)[] = [];
  private trailingTimer: NodeJS.Timeout | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly folderWatchers: fs.FSWatcher[] = [];
  private fileWatcher: FSWatcher | null = null;
  private readonly closeHooks: (() => Promise<void>)[] = [];

  private constructor(private readonly options: DoorbellOptions) {}

  static async open(options: DoorbellOptions): Promise<Doorbell> {
    const bell = new Doorbell(options);
    const accept = options.accept ?? defaultAccept;
    for (const dir of options.dirs ?? []) {
      ensurePrivateDir(dir);
      bell.watchFolder(dir, accept);
    }
    const files = options.files ?? [];
    if (files.length > 0) {
      for (const file of files) {
        ensurePrivateDir(path.dirname(file));
        touchRegular(file);
      }
      // Loaded only by the processes that watch a file: the CLI's watch never pays for it.
      const { watch } = await import('chokidar');
      const watcher = watch([...files], { ignoreInitial: true, persistent: true });
      bell.fileWatcher = watcher;
      // 'raw' is the unthrottled fs.watch notification behind chokidar's throttled 'change': one per
      // write, the earliest signal of an append, never dropped by the throttle. Only it rings, so
      // one append is one wake-up (not a second one for 'change', nor a trailing one).
      watcher.on('raw', () => bell.ring('change', false));
      watcher.on('error', (error) => options.logger.warn({ err: error }, 'file watcher error; relying on the safety rescan'));
      await new Promise<void>((resolve) => watcher.once('ready', resolve));
    }
    const rescanMs = options.rescanMs ?? DEFAULT_RESCAN_MS;
    if (rescanMs > 0) {
      bell.rescanTimer = setInterval(() => bell.ring('rescan', false), rescanMs);
      bell.rescanTimer.unref();
    }
    return bell;
  }

  private watchFolder(dir: string, accept: (file: string) => boolean): void {
    try {
      const watcher = fs.watch(dir, { persistent: true }, (_event, name) => {
        if (name === null || accept(path.join(dir, name.toString()))) this.ring('change', false);
      });
      watcher.on('error', (error) => this.options.logger.warn({ err: error, dir }, 'folder watch failed; relying on the safety rescan'));
      this.folderWatchers.push(watcher);
    } catch (error) {
      // Out of inotify watches or instances (teamd start checks the limits): slower, not broken.
      this.options.logger.warn({ err: error, dir }, 'cannot watch the folder; relying on the safety rescan');
    }
  }

  /** Resolves at once if the bell rang since the last wait, else at the next ring (or abort). */
  wait(signal?: AbortSignal): Promise<WakeReason> {
    if (this.closed) return Promise.resolve('aborted');
    if (this.pending !== null) {
      const reason = this.pending;
      this.pending = null;
      return Promise.resolve(reason);
    }
    if (signal?.aborted) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((waiter) => waiter !== settle);
        resolve('aborted');
      };
      const settle = (reason: WakeReason): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(reason);
      };
      this.waiters.push(settle);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Forgets a ring nobody has waited for yet: the caller is about to read everything anyway. */
  drain(): void {
    if (this.pending === 'change' || this.pending === 'rescan') this.pending = null;
  }

  /** Rings by hand, e.g. after this process itself wrote something the reader must see, or the daemon said so. */
  ring(reason: 'change' | 'rescan' = 'change', trailing = true): void {
    if (this.closed) return;
    const waiters = this.waiters;
    this.waiters = [];
    // A change outranks a rescan that nobody has taken yet.
    if (waiters.length === 0 && this.pending !== 'change') this.pending = reason;
    for (const waiter of waiters) waiter(reason);
    // Re-armed on every event: what must be covered is the throttle window after the *last* one.
    if (trailing) {
      clearTimeout(this.trailingTimer);
      this.trailingTimer = setTimeout(() => {
        this.trailingTimer = undefined;
        this.ring(reason, false);
      }, this.options.trailingMs ?? DEFAULT_TRAILING_MS);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.rescanTimer);
    clearTimeout(this.trailingTimer);
    for (const waiter of this.waiters.splice(0)) waiter('aborted');
    for (const watcher of this.folderWatchers) watcher.close();
    await this.fileWatcher?.close();
    for (const hook of this.closeHooks.splice(0)) await hook();
  }

  /** Runs when the bell closes: whatever else rings it (a store's LISTEN connection) ends with it. */
  onClose(hook: () => Promise<void>): void {
    this.closeHooks.push(hook);
  }
}

function defaultAccept(file: string): boolean {
  const name = path.basename(file);
  return !(name.startsWith('.') || name.endsWith('.lock') || name.endsWith('.tmp'));
}
