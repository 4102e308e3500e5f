import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { Board } from '../../src/store/files/board.js';
import { FileLocker } from '../../src/fs/file-lock.js';
import { Mailbox } from '../../src/store/files/mailbox.js';
import { ProtocolKey } from '../../src/store/protocol-key.js';
import { createLogger } from '../../src/log/logger.js';
import { fileTaskBoard } from '../../src/store/files/file-task-board.js';
import { fileMailStore } from '../../src/store/files/file-mail-store.js';
import type { MailStore } from '../../src/contracts/mail-store.js';
import { PgBoard } from '../../src/store/postgres/pg-board.js';
import { PgMailStore } from '../../src/store/postgres/pg-mail-store.js';
import { migrate } from '../../src/store/postgres/schema.js';
import type { TaskBoard } from '../../src/contracts/task-board.js';
import { writeRoster } from './team.js';
import { makeTempDir, onBeforeTempRemoval } from './temp-dir.js';

export interface OpenedStore {
  readonly board: TaskBoard;
  readonly mail: MailStore;
  /** Puts these members on the roster (the file store's config.json, the database's members table). */
  readonly addMembers: (names: readonly string[]) => Promise<void>;
}

export interface StoreKind {
  readonly name: 'files' | 'postgres';
  /** Null where the store cannot run here (no PostgreSQL server installed outside CI). */
  readonly available: boolean;
  open(): Promise<OpenedStore>;
}

const logger = createLogger();

const files: StoreKind = {
  name: 'files',
  available: true,
  open: async () => {
    const root = path.join(makeTempDir(), '.team');
    const paths = writeRoster(root, []);
    const mailbox = new Mailbox({ paths, logger, durable: false });
    const members: string[] = [];
    return {
      board: fileTaskBoard(new Board({ paths, locker: new FileLocker({ logger }), logger })),
      mail: fileMailStore({ paths, mailbox, logger }),
      addMembers: async (names) => {
        members.push(...names);
        writeRoster(root, members);
      },
    };
  },
};

let migrated: Promise<unknown> | null = null;

const postgres: StoreKind = {
  name: 'postgres',
  available: inject('pgUrl') !== null,
  open: async () => {
    const pool = new pg.Pool({ connectionString: inject('pgUrl')!, max: 8 });
    onBeforeTempRemoval(async () => {
      if (!pool.ended) await pool.end();
    });
    migrated ??= migrate(pool);
    await migrated;
    // A team of its own per test: the rows of one never meet another's (and team scoping is tested on the way).
    const team = `t-${randomUUID().slice(0, 8)}`;
    const key = new ProtocolKey(path.join(makeTempDir(), 'protocol.key'));
    return {
      board: new PgBoard({ pool, team, logger }),
      mail: new PgMailStore({ pool, team, key, logger }),
      addMembers: async (names) => {
        await pool.query('INSERT INTO teamd_teams (team) VALUES ($1) ON CONFLICT DO NOTHING', [team]);
        for (const name of names) {
          await pool.query('INSERT INTO teamd_members (team, name, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [team, name, JSON.stringify({ name })]);
        }
      },
    };
  },
};

/** Both stores, for `describe.each`: the same tests run against each. */
export const STORES: readonly StoreKind[] = [files, postgres];
