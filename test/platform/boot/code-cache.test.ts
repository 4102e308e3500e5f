import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, TEAMD_BIN } from '../../helpers/processes.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait.js';

const CACHED_MODULES = path.join(REPO_ROOT, 'dist/src/platform/boot/cached-modules.js');

interface Run {
  readonly stale: boolean;
  readonly cacheFile: string;
  readonly said: string;
}

/**
 * A one-file bundle in `<dir>/b/` (its caches go to `<dir>/.cache`, cached-modules.ts) that says
 * something later, uses require, and knows its own file name.
 */
function writeBundle(dir: string, word: string): string {
  fs.mkdirSync(path.join(dir, 'b'), { recursive: true });
  const bundle = path.join(dir, 'b', 'bundle.cjs');
  fs.writeFileSync(
    bundle,
    `const os = require('node:os');
function greet(name) { return '${word} ' + name; }
setImmediate(() => { process.stdout.write(JSON.stringify({ said: greet(require('node:path').basename(__filename)) + ' ' + typeof os.cpus }) + '\\n'); });
`,
  );
  return bundle;
}

/** A script that runs the bundle with the code cache, as the start files do, and prints what it made of the cache. */
const runner = (bundle: string, role: string, print = true): string =>
  `import { runCachedModules } from ${JSON.stringify(CACHED_MODULES)};
const [run] = runCachedModules({ entry: ${JSON.stringify(bundle)}, role: '${role}' }).caches.values();
${print ? "process.stdout.write(JSON.stringify({ stale: run.stale, cacheFile: run.cacheFile }) + '\\n');" : ''}`;

/** Runs the bundle in a fresh Node (with the given V8 flags). */
function run(bundle: string, flags: readonly string[] = []): Run {
  const script = runner(bundle, 'test');
  const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8' });
  const [first, second] = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stale: first!.stale as boolean, cacheFile: first!.cacheFile as string, said: second!.said as string };
}

describe('the code cache', () => {
  it('is written by the first run and used by the next, which says the same', () => {
    const dir = makeTempDir();
    const bundle = writeBundle(dir, 'hello');
    const first = run(bundle);
    expect(first).toMatchObject({ stale: true, said: 'hello bundle.cjs function' });
    expect(path.dirname(first.cacheFile)).toBe(path.join(dir, '.cache'));
    expect(fs.statSync(first.cacheFile).size).toBeGreaterThan(0);
    const second = run(bundle);
    expect(second).toEqual({ ...first, stale: false });
    // Nothing left behind but the cache.
    expect(fs.readdirSync(path.join(dir, '.cache'))).toEqual([path.basename(first.cacheFile)]);
  });

  it('refuses a cache of garbage or a torn one, runs as without, and writes a good one', () => {
    const dir = makeTempDir();
    const bundle = writeBundle(dir, 'hello');
    const { cacheFile } = run(bundle);
    const good = fs.readFileSync(cacheFile);
    for (const bad of [Buffer.from('not a code cache at all, '.repeat(100)), good.subarray(0, Math.floor(good.length / 2)), Buffer.alloc(0)]) {
      fs.writeFileSync(cacheFile, bad);
      expect(run(bundle)).toMatchObject({ stale: true, said: 'hello bundle.cjs function' });
      expect(run(bundle).stale).toBe(false);
    }
  });

  it('is not the old code once the bundle changes, even to the same length and time', () => {
    const dir = makeTempDir();
    const bundle = writeBundle(dir, 'hello');
    const before = run(bundle);
    run(bundle);
    const { atime, mtime } = fs.statSync(bundle);
    writeBundle(dir, 'howdy');
    fs.utimesSync(bundle, atime, mtime);
    const after = run(bundle);
    expect(after).toMatchObject({ stale: true, said: 'howdy bundle.cjs function' });
    expect(after.cacheFile).not.toBe(before.cacheFile);
  });

  it('keeps one cache per set of V8 flags instead of one flag set refusing the other', () => {
    const dir = makeTempDir();
    const bundle = writeBundle(dir, 'hello');
    const plain = run(bundle);
    const flagged = run(bundle, ['--max-semi-space-size=1']);
    expect(flagged.stale).toBe(true);
    expect(flagged.cacheFile).not.toBe(plain.cacheFile);
    expect(run(bundle).stale).toBe(false);
    expect(run(bundle, ['--max-semi-space-size=1']).stale).toBe(false);
  });

  it('leaves one whole cache and no temporary files when many first runs race to write it', async () => {
    const dir = makeTempDir();
    const bundle = writeBundle(dir, 'hello');
    // The same command line each time: with -e, Node counts the code among its flags (execArgv).
    const script = runner(bundle, 'race');
    const runOnce = (): Promise<{ code: number | null; out: string }> => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
    };
    for (const result of await Promise.all(Array.from({ length: 8 }, runOnce))) {
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/^\{"stale":(true|false),"cacheFile":"[^"]+"\}\n\{"said":"hello bundle\.cjs function"\}\n$/);
    }
    expect(fs.readdirSync(path.join(dir, '.cache'))).toEqual([expect.stringMatching(/^b\+bundle\.cjs-race-[0-9a-f]{8}\.bin$/)]);
    expect(await runOnce()).toMatchObject({ code: 0, out: expect.stringMatching(/^\{"stale":false,.*\n\{"said":"hello bundle\.cjs function"\}\n$/) });
  });

  it('runs uncached, without a word, where the cache cannot be written', () => {
    const dir = makeTempDir();
    const bundle = writeBundle(dir, 'hello');
    // A file where the cache folder would be: nothing can be written under it, even by root.
    fs.writeFileSync(path.join(dir, '.cache'), 'in the way');
    expect(run(bundle)).toMatchObject({ stale: true, said: 'hello bundle.cjs function' });
    expect(run(bundle)).toMatchObject({ stale: true, said: 'hello bundle.cjs function' });
    expect(fs.readFileSync(path.join(dir, '.cache'), 'utf8')).toBe('in the way');
  });

  it('is written by a process that keeps running, and does not keep one running', async () => {
    const dir = makeTempDir();
    fs.mkdirSync(path.join(dir, 'b'));
    const bundle = path.join(dir, 'b', 'bundle.cjs');
    fs.writeFileSync(bundle, `setInterval(() => {}, 60_000);\n`);
    const script = runner(bundle, 'long', false);
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    try {
      const cache = await waitFor(
        () => (fs.existsSync(path.join(dir, '.cache')) ? fs.readdirSync(path.join(dir, '.cache')).find((f) => f.endsWith('.bin')) : undefined),
        'the cache file',
      );
      expect(cache).toMatch(/^b\+bundle\.cjs-long-[0-9a-f]{8}\.bin$/);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
    // A bundle that ends by itself ends its process at once: the wait for the save is unref'd.
    fs.writeFileSync(bundle, `process.stdout.write('done');\n`);
    const started = spawn(process.execPath, ['--input-type=module', '-e', runner(bundle, 'short', false)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const code = await new Promise<number | null>((resolve) => started.on('exit', resolve));
    expect(code).toBe(0);
    expect(fs.readdirSync(path.join(dir, '.cache')).some((f) => f.startsWith('b+bundle.cjs-short-'))).toBe(true);
  });

  it('says how to build teamd when bin/teamd runs from a checkout that was never built', () => {
    const dir = makeTempDir();
    fs.mkdirSync(path.join(dir, 'bin'));
    for (const file of ['teamd', 'package.json']) fs.copyFileSync(path.join(REPO_ROOT, 'bin', file), path.join(dir, 'bin', file));
    const result = spawnSync(process.execPath, [path.join(dir, 'bin/teamd'), 'status'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('teamd: not built yet: run `npm install` (or `npm run build`) in the teamd checkout first\n');
  });

  it('gives the CLI one cache per command, and a command line naming none shares one', () => {
    const dir = makeTempDir();
    const cacheDir = path.join(REPO_ROOT, 'node_modules/.cache/teamd');
    const state = path.join(dir, '.team');
    execFileSync(process.execPath, [TEAMD_BIN, 'task', 'add', 'cached', '--dir', state], { encoding: 'utf8' });
    expect(execFileSync(process.execPath, [TEAMD_BIN, 'task', 'list', '--dir', state], { encoding: 'utf8' })).toContain('cached');
    // No command named (since 99dced4, --version has a role of its own): what help, a typo or no arguments share.
    execFileSync(process.execPath, [TEAMD_BIN, '--help'], { encoding: 'utf8' });
    const files = fs.readdirSync(cacheDir);
    expect(files.some((f) => /^cli\+entry\.js-task-[0-9a-f]{8}\.bin$/.test(f))).toBe(true);
    expect(files.some((f) => /^cli\+chunks\+task-[A-Z0-9]+\.js-task-[0-9a-f]{8}\.bin$/.test(f))).toBe(true);
    expect(files.some((f) => /^cli\+entry\.js-other-[0-9a-f]{8}\.bin$/.test(f))).toBe(true);
    expect(files.every((f) => /^(cli|teammate)\+[A-Za-z0-9+.-]+\.js-[a-z0-9-]+-[0-9a-f]{8}\.bin(\.\d+\.tmp)?$/.test(f))).toBe(true);
  });
});
