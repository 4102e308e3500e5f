import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../logger.js';
import { ensurePrivateDir } from '../fs/private-dir.js';

export type WakeReason = 'change' | 'rescan' | 'aborted';

export interface DoorbellOptions {
  /** Folders to watch (created if missing); only their direct entries count. */
  readonly dirs: readonly string[];
  /** Which paths ring the bell; default: all but temp and lock files. */
  readonly accept?: (file: string) => boolean;
  /** A slow safety ring for events the OS dropped (inotify overflow is silent). */
  readonly rescanMs?: number;
  /**
   * chokidar reports a path's changes at most once per 50 ms, leading edge only, and drops a
   * change whose mtime equals the last one it saw (timestamps tick every few ms): the last
   * appends of a burst can go unreported. So the bell rings again this long after the last event.
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
export class Doorbell {
  private rung = false;
  private waiters: ((reason: WakeReason) => void)[] = [];
  private trailingTimer: NodeJS.Timeout | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly watcher: FSWatcher,
    private readonly options: DoorbellOptions,
  ) {}

  static async open(options: DoorbellOptions): Promise<Doorbell> {
    for (const dir of options.dirs) ensurePrivateDir(dir);
    const accept = options.accept ?? defaultAccept;
    const watcher = watch([...options.dirs], {
      ignoreInitial: true,
      depth: 0,
      persistent: true,
      // An ignored folder would not be watched at all; only filter files.
      ignored: (file, stats) => stats !== undefined && !stats.isDirectory() && !accept(file),
    });
    const bell = new Doorbell(watcher, options);
    watcher.on('all', (_event, file) => {
      if (!options.dirs.includes(file) && accept(file)) bell.ring('change');
    });
    // chokidar's 'raw' events are the unthrottled fs.watch notifications behind 'change': the
    // earliest signal of an append, where 'change' may come 50 ms later or not at all.
    watcher.on('raw', (_event, name, details) => {
      const watched = (details as { watchedPath?: string } | undefined)?.watchedPath;
      if (typeof name !== 'string' || typeof watched !== 'string') return;
      const file = options.dirs.includes(watched) ? path.join(watched, name) : watched;
      if (!options.dirs.includes(file) && accept(file)) bell.ring('change');
    });
    watcher.on('error', (error) => options.logger.warn({ err: error }, 'file watcher error; relying on the safety rescan'));
    await new Promise<void>((resolve) => watcher.once('ready', resolve));
    bell.rescanTimer = setInterval(() => bell.ring('rescan', false), options.rescanMs ?? DEFAULT_RESCAN_MS);
    bell.rescanTimer.unref();
    return bell;
  }

  /** Resolves at once if the bell rang since the last wait, else at the next ring (or abort). */
  wait(signal?: AbortSignal): Promise<WakeReason> {
    if (this.rung || this.closed) {
      this.rung = false;
      return Promise.resolve(this.closed ? 'aborted' : 'change');
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

  /** Rings by hand, e.g. after this process itself wrote something the reader must see. */
  ring(reason: 'change' | 'rescan' = 'change', trailing = true): void {
    if (this.closed) return;
    const waiters = this.waiters;
    this.waiters = [];
    if (waiters.length === 0) this.rung = true;
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
    await this.watcher.close();
  }
}

function defaultAccept(file: string): boolean {
  const name = path.basename(file);
  return !(name.startsWith('.') || name.endsWith('.lock') || name.endsWith('.tmp'));
}
