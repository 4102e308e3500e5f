import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/store/store-setting.js';
import { statePaths } from '../../src/paths.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('a store URL in words (issue 48)', () => {
  it('shows no part of the password, whatever it holds; a URL that does not parse is not shown at all', () => {
    // An unencoded @ in the password: the driver takes the last @ as the end of it, and so does the redaction.
    expect(redactUrl('postgres://teamd:p@ss@db.internal:5432/teamd')).toBe('postgres://teamd:***@db.internal:5432/teamd');
    expect(redactUrl('postgres://teamd:s3cr%2Ft@db:5432/teamd?sslmode=require')).toBe('postgres://teamd:***@db:5432/teamd?sslmode=require');
    expect(redactUrl('postgres://db:5432/teamd?user=teamd&password=hunter2')).not.toContain('hunter2');
    expect(redactUrl('postgres://teamd:hunter2@[::1:5432/teamd')).toBe('(a store URL that does not parse; not shown)');
    // Nothing secret in it: a typo stays readable.
    expect(redactUrl('file')).toBe('file');
    expect(redactUrl('postgres://teamd@db/teamd')).toBe('postgres://teamd@db/teamd');
  });

  it("a killed writer's temp copy of config.json (the URL, password and all) is removed at the next start, even one that fails to reach the store", async () => {
    const dir = path.join(makeTempDir('teamd-ws-'), '.team');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(statePaths(dir).config, JSON.stringify({ members: [], settings: { store: 'postgres://teamd:hunter2@127.0.0.1:1/teamd' } }));
    // As writeFileAtomicSync names it: .<file>.<pid>.<8 hex>.tmp, the pid of a process long gone.
    const temp = path.join(dir, '.config.json.99999999.0badc0de.tmp');
    fs.writeFileSync(temp, '{"settings":{"store":"postgres://teamd:hunter2@db/teamd"}}');
    const started = await runTeamd(['start', '--dir', dir]);
    expect(started.code).not.toBe(0);
    expect(started.stderr).toContain('unreachable');
    expect(started.stderr).not.toContain('hunter2');
    expect(fs.existsSync(temp)).toBe(false);
  });
});
