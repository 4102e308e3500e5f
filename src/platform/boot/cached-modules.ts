import Module from 'node:module';
import path from 'node:path';
import { CacheSaver, compileCached, type CachePlace, type ModuleWrapper } from './code-cache.js';

export interface CachedModules {
  /** Each file loaded so far (more as chunks load late): its cache file, and whether it was missing or refused. */
  readonly caches: ReadonlyMap<string, { readonly cacheFile: string; readonly stale: boolean }>;
}

export interface CachedModulesOptions {
  /** The bundle's entry: a CommonJS file that requires its chunks by relative path (`./chunks/x.js`). */
  readonly entry: string;
  /** What this process is, part of each cache's name (code-cache.ts). */
  readonly role: string;
  /** The module that loads the bundle (the start file's own `module`). */
  readonly parent?: NodeJS.Module;
  /** How long after a file loads its cache is written, when it was missing or refused (code-cache.ts). */
  readonly saveAfterMs?: number;
  /** Where the caches go; by default `.cache/` beside the bundle's folder. */
  readonly cacheDir?: string;
}

/**
 * Runs a bundle split into CommonJS files (the teammate's: an entry and the chunks it shares with
 * what it loads late) with V8's code cache, one cache per file. The files' `require` of a
 * relative `.js` path inside the bundle's folder comes here, so each chunk is compiled with its
 * cache and evaluated once; anything else (Node's builtins) goes to Node's own require.
 *
 * A chunk loaded late (on first use) is compiled then, and its cache written a few seconds
 * later: each file's cache holds what that process had compiled of it by then.
 */
export function runCachedModules(options: CachedModulesOptions): CachedModules {
  const entry = path.resolve(options.entry);
  const root = path.dirname(entry);
  const saver = new CacheSaver(options.saveAfterMs);
  const loaded = new Map<string, { readonly module: NodeJS.Module; readonly cacheFile: string; readonly stale: boolean }>();

  const load = (file: string, parent: NodeJS.Module | undefined): unknown => {
    const known = loaded.get(file);
    if (known) return known.module.exports;
    const compiled = compileCached(file, options.role, cachePlace(file, root, options.cacheDir));
    if (compiled.stale) saver.add(compiled);
    const module = new Module(file, parent);
    module.filename = file;
    // Before it runs, as Node does: chunks that require each other get the exports so far.
    loaded.set(file, { module, cacheFile: compiled.cacheFile, stale: compiled.stale });
    const dir = path.dirname(file);
    const nodeRequire = Module.createRequire(file);
    const localRequire = ((id: string) => {
      const target = inBundle(id, dir, root);
      return target === null ? (nodeRequire(id) as unknown) : load(target, module);
    }) as NodeJS.Require;
    localRequire.resolve = nodeRequire.resolve;
    localRequire.cache = nodeRequire.cache;
    localRequire.main = nodeRequire.main;
    localRequire.extensions = nodeRequire.extensions;
    const wrapper = compiled.script.runInThisContext() as ModuleWrapper;
    wrapper.call(module.exports, module.exports, localRequire, module, file, dir);
    module.loaded = true;
    return module.exports;
  };

  load(entry, options.parent);
  return { caches: loaded };
}

/**
 * All of the bundle's caches in one folder (by default `.cache/` beside the bundle's own folder),
 * named by their path from that folder's parent: `teammate+chunks+chunk-X.js-teammate-<key>.bin`.
 */
function cachePlace(file: string, root: string, dir?: string): CachePlace {
  const parent = path.dirname(root);
  return { dir: dir ?? path.join(parent, '.cache'), name: path.relative(parent, file).split(path.sep).join('+') };
}

/**
 * The code caches of the bundle in `bundleDir` (`<package>/dist/bundle`): outside dist/, in
 * `<package>/node_modules/.cache/teamd` as build tools keep theirs, so that a build, which
 * rewrites dist/bundle, never meets a running teammate writing its cache there.
 */
export function packageCacheDir(bundleDir: string): string {
  return path.join(bundleDir, '..', '..', 'node_modules', '.cache', 'teamd');
}

/** The file a relative `.js` require names, when it is inside the bundle's folder; otherwise null. */
function inBundle(id: string, dir: string, root: string): string | null {
  if (!(id.startsWith('./') || id.startsWith('../')) || !id.endsWith('.js')) return null;
  const target = path.resolve(dir, id);
  return target.startsWith(root + path.sep) ? target : null;
}
