import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { readConfig } from '../../src/roster/roster.js';
import { startDaemon } from '../helpers/daemon.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir, onBeforeTempRemoval } from '../helpers/temp-dir.js';
import { waitFor, waitForAsync } from '../helpers/wait.js';

const url = inject('pgUrl');

describe.skipIf(url === null)("a host's connections to PostgreSQL", () => {
  it('grow with hosts, not teammates: one listening connection per host, at most one per teammate, and messages still wake their teammate at once', async () => {
    const team = `conn-${randomUUID().slice(0, 6)}`;
    const dir = path.join(makeTempDir('teamd-conn-'), 'ws', '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(statePaths(dir).config, JSON.stringify({ members: [], settings: { store: url, team, host: 'h1', idleTimeoutMs: 0 } }));
    await startDaemon(dir);
    const names = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'];
    for (const name of names) expect((await runTeamd(['spawn', name, 'coder', '--dir', dir])).code).toBe(0);
    const paths = statePaths(dir);
    await waitFor(() => readConfig(paths.config).members.every((m) => m.status === 'idle') || null, 'the team idle');
    const client = new pg.Client({ connectionString: url! });
    await client.connect();
    onBeforeTempRemoval(() => client.end().catch(() => undefined));
    // A message to each teammate reaches it (relayed by its daemon, who alone listens): each reads it.
    for (const name of names) {
      const sent = await runTeamd(['send', name, `hello ${name}`, '--dir', dir, '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      const id = (JSON.parse(sent.stdout) as { id: string }).id;
      await waitForAsync(async () => {
        const cursor = await client.query<{ last_id: string }>('SELECT last_id FROM teamd_cursors WHERE team = $1 AND consumer = $2', [team, name]);
        return cursor.rows[0]?.last_id === id || null;
      }, `${name} to read its message`);
    }
    const sessions = (
      await client.query<{ name: string; query: string }>(
        "SELECT application_name AS name, query FROM pg_stat_activity WHERE application_name LIKE '%(' || $1 || '@h1)'",
        [`${team}`],
      )
    ).rows;
    const of = (part: string) => sessions.filter((s) => s.name === `teamd ${part} (${team}@h1)`);
    const listening = sessions.filter((s) => s.query.startsWith('LISTEN'));
    expect(listening.map((s) => s.name)).toEqual([`teamd daemon (${team}@h1)`]);
    for (const name of names) expect(of(name).length, `${name}'s connections`).toBeLessThanOrEqual(1);
    // The daemon: its pool (4 at most), its heartbeat's and its listening one.
    expect(of('daemon').length).toBeLessThanOrEqual(6);
    expect(sessions.length).toBeLessThanOrEqual(6 + names.length);
  });
});
