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
  /**
   * Calls `ring` for each change `wanted` accepts. The file store returns null: its readers
   * watch the files themselves (watch/doorbell.ts). PostgreSQL: LISTEN/NOTIFY.
   */
  listen(wanted: (event: StoreEvent) => boolean, ring: () => void): Promise<{ close(): Promise<void> } | null>;
  close(): Promise<void>;
}
