import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const npm = (args: string[], cwd: string): string =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });

describe('the packed package', () => {
  it('installs from its tarball into an empty folder and gives a working teamd', () => {
    const out = makeTempDir('teamd-pack-');
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', out], REPO_ROOT)) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    expect(files).toContain('bin/teamd');
    expect(files).toContain('LICENSE');
    // What bin/teamd and the daemon run: the bundle (docs/architecture.md, "Start-up").
    for (const file of [
      'bin/package.json',
      'dist/bundle/cli-start.cjs',
      'dist/bundle/cli/entry.js',
      'dist/bundle/cli/package.json',
      'dist/bundle/teammate-start.cjs',
      'dist/bundle/teammate/teammate.js',
      'dist/bundle/teammate/package.json',
    ])
      expect(files).toContain(file);
    // V8's code caches are this machine's, written as teamd runs: never shipped.
    expect(files.filter((f) => f.includes('.cache'))).toEqual([]);
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('dist/bench/'))).toBe(false);
    // No source map pointing at sources that are not shipped; what the bundle imports is shipped too.
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((f) => f.startsWith('dist/bundle/') && (f.endsWith('.js') || f.endsWith('.cjs')))) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/(?:from\s*|require\()"(\.{1,2}\/[^"]+)"/g))
        expect(files).toContain(path.posix.join(path.posix.dirname(file), target!));
    }
    expect(fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const app = makeTempDir('teamd-install-');
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'try-teamd', version: '1.0.0', private: true }));
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(out, packed[0]!.filename)], app);
    const teamd = path.join(app, 'node_modules/.bin/teamd');
    const version = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
    expect(execFileSync(teamd, ['--version'], { cwd: app, encoding: 'utf8' }).trim()).toBe(version);
    const added = JSON.parse(execFileSync(teamd, ['task', 'add', 'from the package', '--json'], { cwd: app, encoding: 'utf8' }));
    expect(added).toMatchObject({ id: 1, subject: 'from the package', status: 'pending' });
    expect(fs.existsSync(path.join(app, '.team/tasks/task_1.json'))).toBe(true);
    expect(fs.existsSync(path.join(app, 'node_modules/typescript'))).toBe(false);
  });
});
