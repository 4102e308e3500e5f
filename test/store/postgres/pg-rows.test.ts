import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { TeamdError } from '../../../src/errors.js';
import { ProtocolKey } from '../../../src/store/protocol-key.js';
import { createLogger } from '../../../src/log/logger.js';
import { PgBoard } from '../../../src/store/postgres/pg-board.js';
import { PgMailStore } from '../../../src/store/postgres/pg-mail-store.js';
import { migrate } from '../../../src/store/postgres/schema.js';
import { makeTempDir, onBeforeTempRemoval } from '../../helpers/temp-dir.js';

const url = inject('pgUrl');

async function open() {
  const pool = new pg.Pool({ connectionString: url!, max: 4 });
  onBeforeTempRemoval(() => pool.end().catch(() => undefined));
  await migrate(pool);
  const team = `rows-${randomUUID().slice(0, 8)}`;
  const logger = createLogger();
  return {
    pool,
    team,
    board: new PgBoard({ pool, team, logger }),
    mail: new PgMailStore({ pool, team, key: new ProtocolKey(path.join(makeTempDir(), 'protocol.key')), logger }),
  };
}

// Rows edited by hand (or by another program) that break the contract: named, skipped, left untouched.
describe.skipIf(url === null)('PostgreSQL rows that are not valid', () => {
  it('a task row whose JSON breaks the schema is listed as a problem, skipped by claims and refused by name; the rest of the board works', async () => {
    const { pool, team, board } = await open();
    for (const subject of ['a', 'b', 'c']) await board.add({ subject });
    await pool.query(`UPDATE teamd_tasks SET data = jsonb_set(data, '{status}', '"done"') WHERE team = $1 AND id = 1`, [team]);
    const listing = await board.list();
    expect(listing.tasks.map((task) => task.id)).toEqual([2, 3]);
    expect(listing.problems).toEqual([{ id: 1, file: `teamd_tasks row (${team}, 1)`, reason: expect.stringContaining('status') }]);
    expect((await board.claimNext('alice'))?.id).toBe(2);
    const refused = (await board.claim(1, 'alice').catch((error: unknown) => error)) as TeamdError;
    expect(refused.code).toBe('TASK_CORRUPT');
    expect(refused.message).toContain('fix or delete its row');
    const untouched = await pool.query<{ data: { status: string } }>('SELECT data FROM teamd_tasks WHERE team = $1 AND id = 1', [team]);
    expect(untouched.rows[0]!.data.status).toBe('done');
    expect((await board.add({ subject: 'd' })).id).toBe(4);
  });

  it('a message row that is not a message is skipped and reported, and later messages still arrive', async () => {
    const { pool, team, mail } = await open();
    await mail.send({ from: 'alice', to: 'lead', content: 'one' });
    await mail.send({ from: 'alice', to: 'lead', content: 'two' });
    await pool.query(`UPDATE teamd_messages SET data = '{"id": "x"}' WHERE team = $1 AND seq = 1`, [team]);
    await mail.send({ from: 'alice', to: 'lead', content: 'three' });
    const page = await mail.inbox('lead');
    expect(page.messages.map((m) => m.content)).toEqual(['two', 'three']);
    expect(page.skipped).toEqual([{ at: `message 1 of lead's inbox (team ${team})`, reason: expect.any(String) }]);
    const reader = mail.reader({ name: 'lead' });
    const batch = await reader.read();
    expect(batch.messages.map((m) => m.content)).toEqual(['two', 'three']);
    await reader.commit(batch);
    expect((await mail.reader({ name: 'lead' }).read()).messages).toEqual([]);
  });
});
