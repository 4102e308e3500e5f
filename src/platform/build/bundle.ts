// `npm run bundle`: the bundles bin/teamd and the daemon run, from tsc's output in dist/
// (docs/architecture.md, "Start-up"). A build tool: nothing in the product imports it.
import fs from 'node:fs';
import path from 'node:path';
import { build, transform, type OutputFile } from 'esbuild';
import { requireBuiltins, wrappedBuiltins } from './builtin-imports.js';
import { standIns } from './stand-ins.js';

const ROOT = path.resolve(process.argv[2] ?? '.');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');

/** `import.meta.url` in CommonJS: the file's own URL, as the ES module had it. */
const META_URL_BANNER = "var teamdBundleUrl = require('node:url').pathToFileURL(__filename).href;";

/**
 * What every step shares: Node 20, minified but for the names. With the source's own names a
 * function or class is called what it is (logs name error classes; stack traces name functions)
 * without esbuild's keepNames, whose `__name(fn, "name")` on every function (~1,900 in a
 * teammate's start) gives each its own dictionary of properties: ~0.6 MiB of an idle
 * teammate's heap (docs/architecture.md, "Scale").
 */
const FOR_NODE = { platform: 'node', target: 'node20', minifyWhitespace: true, minifySyntax: true, logLevel: 'warning' } as const;

/** Chunks of earlier builds are kept this long for teammates still running them, which load chunks late. */
const KEEP_OLD_CHUNKS_MS = 7 * 24 * 60 * 60_000;

/** What this build writes: path to content. Nothing is written until every bundle is made. */
const outputs = new Map<string, string>();

async function main(): Promise<void> {
  await bundleStarts();
  await bundleSplit('src/cli/start/entry.js', 'cli');
  await bundleSplit('workers/teammate.js', 'teammate');
  await copyPage();
  install();
}

/**
 * The dashboard's page (src/ui/page: a module script, a style sheet, the HTML that loads them),
 * minified into dist/bundle/ui, where an installed package has it (src/ui/page-assets.ts).
 */
async function copyPage(): Promise<void> {
  const from = path.join(ROOT, 'src', 'ui', 'page');
  const to = path.join(OUT, 'ui');
  const read = (name: string): string => fs.readFileSync(path.join(from, name), 'utf8');
  outputs.set(path.join(to, 'index.html'), read('index.html'));
  outputs.set(path.join(to, 'app.js'), (await transform(read('app.js'), { loader: 'js', format: 'esm', target: 'es2022', minify: true })).code);
  outputs.set(path.join(to, 'app.css'), (await transform(read('app.css'), { loader: 'css', minify: true })).code);
}

/**
 * Puts the new bundle in place while a team may be running from the old one: never by removing
 * dist/bundle (a teammate still running loads its chunks from there late, and an rm -r of a
 * folder others write into fails with ENOTEMPTY), but file by file, each written whole (temp +
 * rename), chunks before the entries that require them, the start files last; a file whose
 * content did not change is left as it is, with its code cache. Chunks of earlier builds stay
 * KEEP_OLD_CHUNKS_MS for the processes that run them; the code caches of files that changed go.
 */
function install(): void {
  const order = (file: string): number => (file.includes(`${path.sep}chunks${path.sep}`) ? 0 : path.dirname(file) === OUT ? 2 : 1);
  const changed: string[] = [];
  for (const [file, text] of [...outputs].sort(([a], [b]) => order(a) - order(b))) {
    if (readOrNull(file) === text) continue;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, text);
    fs.renameSync(temp, file);
    changed.push(file);
  }
  const gone: string[] = [];
  for (const folder of ['cli', 'teammate']) {
    const chunks = path.join(OUT, folder, 'chunks');
    for (const name of fs.existsSync(chunks) ? fs.readdirSync(chunks) : []) {
      const file = path.join(chunks, name);
      if (outputs.has(file)) continue;
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (name.endsWith('.tmp') || (stat && Date.now() - stat.mtimeMs > KEEP_OLD_CHUNKS_MS)) gone.push(file);
    }
  }
  for (const file of gone) fs.rmSync(file, { force: true });
  forgetCaches([...changed, ...gone]);
}

/** The code caches of files that changed or went (cached-modules.ts names them by the file's path from dist/bundle). */
function forgetCaches(files: readonly string[]): void {
  const caches = path.join(ROOT, 'node_modules', '.cache', 'teamd');
  // Where caches were kept before: inside the bundle.
  fs.rmSync(path.join(OUT, '.cache'), { recursive: true, force: true, maxRetries: 3 });
  if (!fs.existsSync(caches) || files.length === 0) return;
  const prefixes = files.map((file) => `${path.relative(OUT, file).split(path.sep).join('+')}-`);
  for (const name of fs.readdirSync(caches)) if (prefixes.some((prefix) => name.startsWith(prefix))) fs.rmSync(path.join(caches, name), { force: true });
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The start files bin/teamd and the daemon run (cli-start.cjs, teammate-start.cjs): each one
 * file, which runs its bundle with V8's code cache (src/cli/start/cli-start.ts, src/platform/boot/teammate-start.ts).
 */
async function bundleStarts(): Promise<void> {
  const built = await build({
    ...FOR_NODE,
    entryPoints: [path.join(DIST, 'src/cli/start/cli-start.js'), path.join(DIST, 'src/platform/boot/teammate-start.js')],
    bundle: true,
    format: 'esm',
    outdir: OUT,
    entryNames: '[name]',
    write: false,
  });
  for (const file of built.outputFiles) await writeCommonJs(file, file.path.replace(/\.js$/, '.cjs'));
}

/**
 * The CLI and the teammate: each split as ES modules (what a command or the teammate loads late,
 * the SDK or PostgreSQL's client, in chunks of their own), then each file turned into CommonJS,
 * so the start files can run them with V8's code cache (src/platform/boot/cached-modules.ts). Node 20 has
 * no code cache for ES modules. A CLI command loads its own chunks and the builtins they import,
 * not every command's.
 */
async function bundleSplit(entry: string, folder: string): Promise<void> {
  const dir = path.join(OUT, folder);
  const split = await build({
    ...FOR_NODE,
    entryPoints: [path.join(DIST, entry)],
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: dir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [standIns],
    write: false,
  });
  for (const file of split.outputFiles) await writeCommonJs(file, file.path);
  // The files are CommonJS under a package of type module: say so to anything that requires them.
  outputs.set(path.join(dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
}

/**
 * One ES module file of esbuild's as CommonJS: its imports of builtins as plain requires first
 * (builtin-imports.ts), then esbuild's transform.
 */
async function writeCommonJs(file: OutputFile, destination: string): Promise<void> {
  const toCjs = (code: string) =>
    transform(code, {
      ...FOR_NODE,
      sourcefile: path.relative(ROOT, file.path),
      format: 'cjs',
      // import() of a chunk becomes its require, so the code cache's loader compiles it too.
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': 'teamdBundleUrl' },
      // ES modules are strict; as CommonJS they stay so.
      banner: `"use strict";${META_URL_BANNER}`,
    });
  const imports = requireBuiltins(file.text);
  const cjs = await toCjs(imports.code);
  // The rewrite must have found every import esbuild reads as one, and nothing else.
  const expected = wrappedBuiltins((await toCjs(file.text)).code);
  const left = wrappedBuiltins(cjs.code);
  if (imports.rewritten !== expected || left !== 0)
    throw new Error(`${path.relative(ROOT, destination)}: rewrote ${imports.rewritten} imports of builtins where esbuild reads ${expected}, ${left} left`);
  outputs.set(destination, cjs.code);
}

main().catch((error: unknown) => {
  process.stderr.write(`bundle: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
