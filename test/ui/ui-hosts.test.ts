import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { request, startUi } from '../helpers/ui.js';

const url = inject('pgUrl');

describe.skipIf(url === null)('teamd ui on a store several hosts share (PostgreSQL)', () => {
  it("shows every host's teammates, each with the host that runs it, not only this host's roster", async () => {
    const init = await runTeamd(['store', 'init', '--store', url!]);
    expect(init.code, init.stderr).toBe(0);
    const team = `ui-${randomUUID().slice(0, 8)}`;
    const dir = path.join(makeTempDir('teamd-ui-hosts-'), '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ members: [{ name: 'alice', role: 'coder', status: 'idle' }], settings: { store: url, team, host: 'h1' } }),
    );
    // bob, as the daemon of h2 publishes him.
    const client = new pg.Client({ connectionString: url! });
    await client.connect();
    onBeforeTempRemoval(() => client.end().catch(() => undefined));
    await client.query('INSERT INTO teamd_teams (team) VALUES ($1) ON CONFLICT DO NOTHING', [team]);
    await client.query('INSERT INTO teamd_members (team, name, host, data) VALUES ($1, $2, $3, $4)', [
      team,
      'bob',
      'h2',
      JSON.stringify({ name: 'bob', role: 'reviewer', status: 'working', task: 7 }),
    ]);
    const ui = await startUi(dir);
    const state = JSON.parse((await request(ui.port, 'GET', '/api/state', { authorization: `Bearer ${ui.token}` })).body) as {
      members: { name: string; status: string; host?: string | null }[];
    };
    expect(state.members.map(({ name, status, host }) => ({ name, status, host: host ?? null }))).toEqual([
      // No daemon runs here: this host's own teammate is shown stopped; h2's as its daemon published it.
      { name: 'alice', status: 'stopped', host: null },
      { name: 'bob', status: 'working', host: 'h2' },
    ]);
  });
});
