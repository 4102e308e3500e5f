// `npm run bundle`: the bundles bin/teamd and the daemon run, from tsc's output in dist/
// (docs/architecture.md, "Start-up"). A build tool: nothing in the product imports it.
import fs from 'node:fs';
import path from 'node:path';
import { build, transform } from 'esbuild';
import { requireBuiltins, wrappedBuiltins } from './builtin-imports.js';

const ROOT = path.resolve(process.argv[2] ?? '.');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');

/** `import.meta.url` in CommonJS: the file's own URL, as the ES module had it. */
const META_URL_BANNER = "var teamdBundleUrl = require('node:url').pathToFileURL(__filename).href;";

/** What every step shares: Node 20, minified with the names kept (logs and errors name classes). */
const FOR_NODE = { platform: 'node', target: 'node20', minify: true, keepNames: true, logLevel: 'warning' } as const;

async function main(): Promise<void> {
  fs.rmSync(OUT, { recursive: true, force: true });
  await bundleCli();
  await bundleTeammate();
}

/** The CLI: one CommonJS file run through the code cache by cli-start.cjs (src/cli/cli-start.ts). */
async function bundleCli(): Promise<void> {
  await build({
    ...FOR_NODE,
    entryPoints: [path.join(DIST, 'src/cli/entry.js'), path.join(DIST, 'src/cli/cli-start.js'), path.join(DIST, 'src/boot/teammate-start.js')],
    bundle: true,
    format: 'cjs',
    outdir: OUT,
    entryNames: '[name]',
    outExtension: { '.js': '.cjs' },
    define: { 'import.meta.url': 'teamdBundleUrl' },
    banner: { js: META_URL_BANNER },
  });
}

/**
 * The teammate: split as ES modules (what it loads late, the SDK or PostgreSQL's client, in chunks
 * of their own), then each file turned into CommonJS, so teammate-start.cjs can run them with V8's
 * code cache (src/boot/cached-modules.ts). Node 20 has no code cache for ES modules.
 */
async function bundleTeammate(): Promise<void> {
  const dir = path.join(OUT, 'teammate');
  const split = await build({
    ...FOR_NODE,
    entryPoints: [path.join(DIST, 'workers/teammate.js')],
    bundle: true,
    splitting: true,
    format: 'esm',
    outdir: dir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    write: false,
  });
  for (const file of split.outputFiles) {
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
      throw new Error(`${path.relative(ROOT, file.path)}: rewrote ${imports.rewritten} imports of builtins where esbuild reads ${expected}, ${left} left`);
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, cjs.code);
  }
  // The files are CommonJS under a package of type module: say so to anything that requires them.
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bundle: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
