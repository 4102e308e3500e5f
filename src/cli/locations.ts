import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The installed package's folder: the nearest folder above this module holding teamd's
 * package.json. Found by walking up, so it is the same whether this code runs from dist/src/cli/
 * or from a chunk of the bundle in dist/bundle/.
 */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 8; level++) {
    const manifest = path.join(dir, 'package.json');
    try {
      if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'teamd') return dir;
    } catch {
      // not here: one level up
    }
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find teamd's package.json above ${fileURLToPath(import.meta.url)}; reinstall teamd`);
}

export const PACKAGE_ROOT = packageRoot();
export const PACKAGE_JSON = path.join(PACKAGE_ROOT, 'package.json');
export const TEAMD_BIN = path.join(PACKAGE_ROOT, 'bin', 'teamd');
/** The teammate's entry, bundled (one file and a few chunks: a teammate starts without resolving hundreds of modules). */
export const DEFAULT_WORKER_SCRIPT = path.join(PACKAGE_ROOT, 'dist', 'bundle', 'teammate.js');
