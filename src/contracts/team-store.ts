import * as z from 'zod';
import type { HostRegistry } from './host-registry.js';
import type { MailStore } from './mail-store.js';
import type { MemberDirectory } from './member-directory.js';
import type { TaskBoard } from './task-board.js';

/** Where the team's shared state lives, and under which team and host names. */
export type StoreSetting = { readonly kind: 'files' } | { readonly kind: 'postgres'; readonly url: string; readonly team: string; readonly host: string };

/** One NOTIFY payload: a task changed, or a message was appended to an inbox. */
export const storeEventSchema = z.discriminatedUnion('kind', [
  z.object({ team: z.string(), kind: z.literal('task'), id: z.number().int(), status: z.string() }),
  z.object({ team: z.string(), kind: z.literal('message'), to: z.string(), seq: z.number().int() }),
  z.object({ team: z.string(), kind: z.literal('request'), host: z.string(), id: z.string() }),
  z.object({ team: z.string(), kind: z.literal('answer'), id: z.string() }),
]);
export type StoreEvent = z.infer<typeof storeEventSchema>;

/** Why a bell's wait ended: something changed, the safety re-check came due, or the wait was given up. */
export type WakeReason = 'change' | 'rescan' | 'aborted';

/**
 * A wake-up for a waiting reader (watch/doorbell.ts): wait() resolves once something changed
 * since the previous wait() returned. A ring means "go and read to the end", never "one new item".
 */
export interface Bell {
  wait(signal?: AbortSignal): Promise<WakeReason>;
  /** Forgets a ring nobody has waited for yet: the caller is about to read everything anyway. */
  drain(): void;
  /** Rings by hand: this process wrote something the reader must see, or the daemon said so. */
  ring(reason?: 'change' | 'rescan', trailing?: boolean): void;
  close(): Promise<void>;
  /** Runs when the bell closes. */
  onClose(hook: () => Promise<void>): void;
}

/** What a bell rings for: one reader's inbox (a teammate's), or the whole team's board and inboxes (the daemon, teamd run). */
export type BellScope =
  | { readonly inbox: string }
  /** `done`: also tasks as they finish (a watcher of a goal), not only as they change while live. */
  | { readonly team: true; readonly done?: boolean };

/**
 * `run/board-looked`, where the store keeps one (store/files/look-marker.ts): the daemon marks each look
 * at the whole board, and an idle teammate's safety re-check skips its own scan while the mark
 * covers the board's last change.
 */
export interface BoardLooks {
  mark(startedAt: number): boolean;
  covers(): boolean;
}

/**
 * The team's shared state, whichever store holds it. The teammate, the supervisor and the CLI
 * are given one of these and do not know which store they use.
 */
export interface TeamStore {
  readonly setting: StoreSetting;
  readonly board: TaskBoard;
  readonly mail: MailStore;
  readonly members: MemberDirectory;
  /** The team's daemons on several hosts: a shared store only (null for files: one host, whose pids are checked directly). */
  readonly hosts: HostRegistry | null;
  /** This host and its team, in a store several hosts share; null for the file store (one host). */
  readonly shared: { readonly team: string; readonly host: string } | null;
  /**
   * A bell for `scope`, however the store hears of changes (the file store: watches on its files;
   * PostgreSQL: LISTEN/NOTIFY), with a safety re-check every `rescanMs` (0: none; absent: the
   * bell's default, 5 s) for a change it did not hear of.
   */
  bell(scope: BellScope, options?: { readonly rescanMs?: number }): Promise<Bell>;
  /** The daemon's mark of its looks at the board, where the store keeps one (the file store); null where a look costs no scan. */
  readonly boardLooks: BoardLooks | null;
  /**
   * Calls `ring` with each change `wanted` accepts, and without one when changes may have been
   * missed (a listening connection back after a loss: look again). The file store returns null:
   * its readers watch the files themselves (watch/doorbell.ts). PostgreSQL: LISTEN/NOTIFY, one
   * connection per process, or (a teammate) the events its daemon relays.
   */
  listen(wanted: (event: StoreEvent) => boolean, ring: (event?: StoreEvent) => void): Promise<{ close(): Promise<void> } | null>;
  close(): Promise<void>;
}
