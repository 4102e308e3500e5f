import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBoard } from '../../helpers/board.js';
import { member } from '../../helpers/daemon.js';
import { REPO_ROOT } from '../../helpers/processes.js';
import { beforeThisTestsFoldersGo, makeTempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait.js';

/** A checkout of its own, built: its package.json, bin/, dist/ and the dashboard page's source (the build minifies it), and a node_modules of links to this one's packages. */
function copyCheckout(): string {
  const root = makeTempDir('teamd-rebuild-');
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
  fs.cpSync(path.join(REPO_ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'src', 'ui', 'page'), path.join(root, 'src', 'ui', 'page'), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(root, 'dist'), { recursive: true, filter: (source) => !source.includes(`${path.sep}.cache`) });
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(REPO_ROOT, 'node_modules')))
    if (!name.startsWith('.')) fs.symlinkSync(path.join(REPO_ROOT, 'node_modules', name), path.join(root, 'node_modules', name));
  return root;
}

const files = (dir: string): string[] => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();

describe('rebuilding a checkout while its team runs (issue 49, item 7)', () => {
  it('leaves every file a running teammate may still load, keeps the code caches out of dist/, and the team works on, old teammates and new', async () => {
    const root = copyCheckout();
    const teamd = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'bin', 'teamd'), ...args], { encoding: 'utf8' });
    const dir = path.join(makeTempDir('teamd-rebuild-ws-'), '.team');
    beforeThisTestsFoldersGo(async () => {
      teamd('stop', '--dir', dir);
    });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ permissions: { defaultMode: 'bypassPermissions' } }));
    expect(teamd('start', '--dir', dir).status).toBe(0);
    expect(teamd('spawn', 'alice', 'coder', '--dir', dir).status).toBe(0);
    const { board } = openBoard(dir);
    const alice = await waitFor(() => (member(dir, 'alice')?.status === 'idle' ? member(dir, 'alice') : undefined), 'alice idle');
    const bundle = path.join(root, 'dist', 'bundle');
    const before = files(bundle);
    // A change in code both bundles share: every chunk that holds it gets a new name.
    fs.appendFileSync(path.join(root, 'dist', 'src', 'errors.js'), '\nglobalThis.teamdRebuiltForTest = 1;\n');
    const build = spawnSync(process.execPath, [path.join(root, 'dist', 'src', 'platform', 'build', 'bundle.js'), root], { encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    const after = files(bundle);
    expect(after.filter((file) => !before.includes(file)).length, 'chunks of the new build').toBeGreaterThan(0);
    expect(before.filter((file) => !after.includes(file))).toEqual([]);
    expect(after.filter((file) => file.includes('.cache') || file.endsWith('.tmp'))).toEqual([]);
    // The commands run so far kept their caches in node_modules/.cache/teamd.
    expect(fs.readdirSync(path.join(root, 'node_modules', '.cache', 'teamd')).some((name) => /^cli\+.*-(start|spawn)-[0-9a-f]+\.bin$/.test(name))).toBe(true);

    // alice, started from the old build, works on; bob starts from the new one.
    expect(teamd('spawn', 'bob', 'coder', '--dir', dir).status).toBe(0);
    for (const who of ['one', 'two', 'three']) await board.add({ subject: who, description: '```sh\necho done\n```' });
    await waitFor(() => [1, 2, 3].every((id) => board.get(id).status === 'completed') || null, 'the tasks done');
    expect(member(dir, 'alice')).toMatchObject({ pid: alice.pid, restarts: 0 });
    expect(member(dir, 'bob')?.restarts).toBe(0);
    expect(teamd('stop', '--dir', dir).status).toBe(0);
    // The new CLI is the one that runs now.
    expect(execFileSync(process.execPath, [path.join(root, 'bin', 'teamd'), '--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
