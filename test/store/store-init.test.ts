import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { runTeamd } from '../helpers/processes.js';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';

const url = inject('pgUrl');

/** A database of its own on the test server, for a schema made from nothing. */
async function freshDatabase(): Promise<string> {
  const name = `init_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: url! });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const fresh = new URL(url!);
  fresh.pathname = `/${name}`;
  return fresh.toString();
}

describe.skipIf(url === null)('teamd store init', () => {
  it('creates the schema once, says so the second time, and refuses a database newer than this teamd', async () => {
    const db = await freshDatabase();
    const first = await runTeamd(['store', 'init', '--store', db, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ from: 0, to: 1, applied: [1] });
    const again = await runTeamd(['store', 'init', '--store', db]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${db}: schema already at version 1\n`);
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    onBeforeTempRemoval(() => client.end().catch(() => undefined));
    expect((await client.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name LIKE 'teamd_%'")).rows[0].n).toBe(9);
    await client.query("INSERT INTO teamd_schema (version, name) VALUES (99, 'from a newer teamd')");
    const newer = await runTeamd(['store', 'init', '--store', db]);
    expect(newer.code).toBe(2);
    expect(newer.stderr).toContain('newer than this teamd');
  });

  it('teamd status names a database without teamd tables as not set up (teamd store init), not unreachable (issue 48)', async () => {
    const db = await freshDatabase();
    const dir = path.join(makeTempDir('teamd-ws-'), '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ members: [], settings: { store: db } }));
    const status = await runTeamd(['status', '--dir', dir]);
    expect(status.stdout).toMatch(/^store: {2}.* \(NOT SET UP: teamd store init\)$/m);
    expect(status.stdout).toContain('run teamd store init');
    expect(status.stdout).not.toContain('UNREACHABLE');
  });

  it('refuses what is not a store, and a store that cannot be reached, in one line each', async () => {
    const wrong = await runTeamd(['store', 'init', '--store', 'mysql://x']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown store "mysql://x"');
    const files = await runTeamd(['store', 'init', '--store', 'files']);
    expect(files.code).toBe(2);
    const down = await runTeamd(['store', 'init', '--store', 'postgres://teamd:secret@127.0.0.1:1/teamd']);
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toContain('unreachable');
    expect(down.stderr).not.toContain('secret');
  });
});
