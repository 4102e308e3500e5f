import { Board } from '../files/board.js';
import { FileLocker } from '../../fs/file-lock.js';
import { Mailbox } from '../files/mailbox.js';
import { ProtocolKey } from '../protocol-key.js';
import type { StatePaths } from '../../paths.js';
import { fileMailStore } from '../files/file-mail-store.js';
import { fileTaskBoard } from '../files/file-task-board.js';
import { readConfig } from '../../roster/roster.js';
import type { StoreSetting, TeamStore } from '../../contracts/team-store.js';
import type { OpenStoreDeps } from '../open-store-deps.js';
import { fileBell } from '../store-bell.js';
import { LookMarker } from '../files/look-marker.js';

export async function openStore(setting: StoreSetting, deps: OpenStoreDeps): Promise<TeamStore> {
  if (setting.kind === 'postgres') {
    // Loaded only where used: the file store's commands never pay for the client.
    const { openPgStore } = await import('../postgres/pg-store.js');
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
    shared: null,
    bell: fileBell(paths, logger),
    boardLooks: new LookMarker(paths.boardLooked, paths.tasksDir),
    listen: async () => null,
    close: async () => undefined,
  };
}

/** The key that signs grants: in the state folder; a PostgreSQL store keeps the team's copy in step (pg-store.ts). */
export function protocolKeyOf(paths: StatePaths): ProtocolKey {
  return new ProtocolKey(paths.protocolKey);
}
