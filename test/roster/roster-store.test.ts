import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statePaths } from '../../src/paths.js';
import { RosterStore } from '../../src/roster/roster-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

describe('RosterStore (the daemon roster)', () => {
  it('keeps the last good roster when config.json is damaged, and sets the damaged file aside at its next write', () => {
    const paths = statePaths(makeTempDir());
    const store = new RosterStore(paths);
    store.upsertMember('alice', { role: 'coder', status: 'idle' });
    fs.writeFileSync(paths.config, '{"members": [{"na');
    expect(store.read().members.map((m) => m.name)).toEqual(['alice']);
    store.patchMember('alice', { status: 'working' });
    const aside = fs.readdirSync(paths.root).filter((name) => name.startsWith('config.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(paths.root, aside[0]!), 'utf8')).toBe('{"members": [{"na');
    expect(JSON.parse(fs.readFileSync(paths.config, 'utf8')).members[0]).toMatchObject({ name: 'alice', status: 'working' });
  });

  it('a write the disk refuses stays in effect, is reported, and is retried until it lands; one that must persist is refused', async () => {
    const paths = statePaths(makeTempDir());
    const store = new RosterStore(paths, { retryFirstMs: 10, retryMaxMs: 20 });
    store.upsertMember('alice', { role: 'coder', status: 'idle' });
    // A folder in the roster's place makes every write fail (the rename is refused), like a full disk.
    fs.rmSync(paths.config);
    fs.mkdirSync(paths.config);
    store.patchMember('alice', { status: 'working' });
    expect(store.read().members[0]).toMatchObject({ status: 'working' });
    expect(store.health().writeFailing).not.toBeNull();
    expect(() => store.upsertMember('bob', { role: 'coder', status: 'starting' }, { mustPersist: true })).toThrow(/cannot write/);
    expect(store.read().members.map((m) => m.name)).toEqual(['alice']);
    fs.rmdirSync(paths.config);
    await waitFor(() => store.health().writeFailing === null, 'the retried write landing');
    expect(JSON.parse(fs.readFileSync(paths.config, 'utf8')).members[0]).toMatchObject({ name: 'alice', status: 'working' });
    store.close();
  });
});
