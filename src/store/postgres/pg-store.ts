import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { ProtocolKey, readKeyHex } from '../protocol-key.js';
import type { StatePaths } from '../../paths.js';
import type { OpenStoreDeps } from '../open-store-deps.js';
import type { TeamStore, StoreSetting } from '../../contracts/team-store.js';
import { PgBoard } from './pg-board.js';
import { BEAT_TIMEOUT_MS, connectClient, createPool, SessionSockets } from './pg-pool.js';
import { PgListener } from './pg-listener.js';
import { ListenHub } from './listen-hub.js';
import { notifiedBell } from '../store-bell.js';
import { PgMailStore } from './pg-mail-store.js';
import { PgMembers } from './pg-members.js';
import { PgHosts } from './pg-hosts.js';
import { storeError } from './transaction.js';
import { migrate } from './schema.js';
import { within } from '../../platform/within.js';

type PgSetting = Extract<StoreSetting, { kind: 'postgres' }>;

/** How long closing the store waits for its sessions to end on their own before cutting them off. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The PostgreSQL store: one pool per process, parameterized queries only. Opening it makes the
 * team's row if needed and puts the team's protocol key in this host's state folder, so a grant
 * signed on one host is honoured on every other.
 */
export async function openPgStore(setting: PgSetting, deps: OpenStoreDeps): Promise<TeamStore> {
  const { paths, logger } = deps;
  const sockets = new SessionSockets();
  const part = { part: `${deps.part ?? 'command'} (${setting.team}@${setting.host})`, sockets };
  const pool = createPool(setting.url, deps.poolSize ?? 4, logger, part);
  // The daemon's heartbeats, on a connection no other work waits for (opened on first use: teammates never beat).
  const beats = createPool(setting.url, 1, logger, { ...part, queryTimeoutMs: BEAT_TIMEOUT_MS });
  try {
    if (deps.migrate) await migrate(pool);
    if (deps.shareKey || deps.migrate) await syncProtocolKey(pool, setting.team, paths);
  } catch (error) {
    await pool.end().catch(() => undefined);
    await beats.end().catch(() => undefined);
    throw storeError(error);
  }
  const key = new ProtocolKey(paths.protocolKey);
  const hub = deps.listen
    ? null
    : new ListenHub((onEvent, onReconnect) =>
        PgListener.open({ connect: () => connectClient(setting.url, logger, part), team: setting.team, onEvent, onReconnect, logger }),
      );
  const listen = deps.listen ?? hub!.listen;
  const patience = deps.patience ? { ...deps.patience, logger } : undefined;
  const board = new PgBoard({ pool, team: setting.team, logger, ...(patience ? { patience } : {}) });
  return {
    setting,
    board,
    hosts: new PgHosts(pool, setting.team, board, logger, beats),
    mail: new PgMailStore({ pool, team: setting.team, key, logger, listen, ...(patience ? { patience } : {}) }),
    members: new PgMembers(pool, setting.team),
    shared: { team: setting.team, host: setting.host },
    bell: notifiedBell(listen, logger),
    // A look at the board is one query: teammates look for themselves.
    boardLooks: null,
    listen,
    // Bounded: what does not end within CLOSE_GRACE_MS (a query on a dead link) is cut off.
    close: async () => {
      const ended = (async () => {
        await hub?.close();
        if (!pool.ended) await pool.end();
        if (!beats.ended) await beats.end();
      })();
      if (await within(ended, CLOSE_GRACE_MS)) return;
      sockets.destroyAll();
      await within(ended, CLOSE_GRACE_MS);
    },
  };
}

/** The team's row, with the team's key: this host's if the team had none yet, else the team's copied here. */
async function syncProtocolKey(pool: pg.Pool, team: string, paths: StatePaths): Promise<void> {
  const local = readKeyHex(paths.protocolKey);
  const result = await pool.query<{ protocol_key: string }>(
    `INSERT INTO teamd_teams (team, protocol_key) VALUES ($1, $2)
     ON CONFLICT (team) DO UPDATE SET protocol_key = COALESCE(teamd_teams.protocol_key, excluded.protocol_key)
     RETURNING protocol_key`,
    [team, local ?? randomBytes(32).toString('hex')],
  );
  const teams = result.rows[0]!.protocol_key;
  if (teams !== local) {
    ensurePrivateDir(path.dirname(paths.protocolKey));
    writeFileAtomicSync(paths.protocolKey, teams);
  }
}
