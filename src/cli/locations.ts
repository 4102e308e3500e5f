import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The installed package's folder and version: from the nearest teamd package.json above this
 * module, found by walking up, so it is the same whether this code runs from dist/src/cli/ or
 * from the bundle in dist/bundle/. Read once: the version comes from the same parse.
 */
function findPackage(): { readonly root: string; readonly version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 8; level++) {
    const manifest = path.join(dir, 'package.json');
    try {
      const parsed = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === 'teamd') return { root: dir, version: typeof parsed.version === 'string' ? parsed.version : 'unknown' };
    } catch {
      // not here: one level up
    }
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find teamd's package.json above ${fileURLToPath(import.meta.url)}; reinstall teamd`);
}

const PACKAGE = findPackage();
export const PACKAGE_ROOT = PACKAGE.root;
export const PACKAGE_VERSION = PACKAGE.version;
export const TEAMD_BIN = path.join(PACKAGE_ROOT, 'bin', 'teamd');
/** The teammate's start file: its bundle (an entry and a few chunks) run with V8's code cache (src/platform/boot/teammate-start.ts). */
export const DEFAULT_WORKER_SCRIPT = path.join(PACKAGE_ROOT, 'dist', 'bundle', 'teammate-start.cjs');
