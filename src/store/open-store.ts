import { Board } from '../board/board.js';
import { FileLocker } from '../fs/file-lock.js';
import { Mailbox } from '../inbox/mailbox.js';
import { ProtocolKey } from '../inbox/protocol-key.js';
import type { Logger } from '../logger.js';
import type { StatePaths } from '../paths.js';
import { fileMailStore } from './file-mail-store.js';
import { fileTaskBoard } from './file-task-board.js';
import type { MailStore } from './mail-store.js';
import type { MemberDirectory } from './member-directory.js';
import type { HostRegistry } from './host-registry.js';
import { readConfig } from '../roster/roster.js';
import type { StoreEvent } from './pg/pg-listener.js';
import type { StoreSetting } from './store-setting.js';
import type { TaskBoard } from './task-board.js';
import type { Patience } from './pg/transaction.js';

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

export interface OpenStoreDeps {
  readonly paths: StatePaths;
  readonly logger: Logger;
  /** fdatasync each inbox append (file store; default true). */
  readonly durable?: boolean;
  /** Connections one process keeps to a PostgreSQL store (default 4). */
  readonly poolSize?: number;
  /** How long a long-running process waits out an unreachable PostgreSQL store (a command: not at all). */
  readonly patience?: Patience;
  /**
   * Puts the team's protocol key in this host's state folder first (a PostgreSQL store: a query
   * at open). The daemon and commands that sign or send do; a command that only reads does not,
   * so it still answers when the store is down.
   */
  readonly shareKey?: boolean;
  /** Brings a PostgreSQL store's schema up to date first (the daemon and teamd store init do). */
  readonly migrate?: boolean;
}

export async function openStore(setting: StoreSetting, deps: OpenStoreDeps): Promise<TeamStore> {
  if (setting.kind === 'postgres') {
    // Loaded only where used: the file store's commands never pay for the client.
    const { openPgStore } = await import('./pg/pg-store.js');
    return openPgStore(setting, deps);
  }
  const { paths, logger } = deps;
  const mailbox = new Mailbox({ paths, logger, ...(deps.durable === undefined ? {} : { durable: deps.durable }) });
  return {
    setting,
    board: fileTaskBoard(new Board({ paths, locker: new FileLocker({ logger }), logger })),
    mail: fileMailStore({ paths, mailbox, logger }),
    // The roster is config.json itself: nothing to publish.
    members: { publish: async () => undefined, list: async () => readConfig(paths.config).members.map((member) => ({ member, host: null })) },
    hosts: null,
    listen: async () => null,
    close: async () => undefined,
  };
}

/** The key that signs grants: in the state folder; a PostgreSQL store keeps the team's copy in step (pg-store.ts). */
export function protocolKeyOf(paths: StatePaths): ProtocolKey {
  return new ProtocolKey(paths.protocolKey);
}
