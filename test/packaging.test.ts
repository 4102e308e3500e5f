import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/processes.js';

describe('the package', () => {
  it('ships a LICENSE, the bundle and the docs, and no source map pointing at files it does not ship', () => {
    const raw = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const files = (JSON.parse(raw) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'bin/teamd', 'dist/bundle/entry.js', 'dist/bundle/teammate.js'])
      expect(files).toContain(needed);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    // What the shipped bundle imports relatively is shipped too.
    for (const file of files.filter((f) => f.startsWith('dist/bundle/') && f.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/from\s*"(\.{1,2}\/[^"]+)"/g)) expect(files).toContain(path.posix.join(path.posix.dirname(file), target!));
    }
    expect(fs.readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(manifest.license).toBe('MIT');
  });
});
