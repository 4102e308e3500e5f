import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];
const beforeRemove: (() => Promise<void>)[] = [];

/** Runs before temp folders are removed (e.g. stopping daemons that write into them). */
export function onBeforeTempRemoval(hook: () => Promise<void>): void {
  beforeRemove.push(hook);
}

/** A fresh temp folder, removed after the test. */
export function makeTempDir(prefix = 'teamd-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/**
 * A fresh folder outside /tmp, removed after the test: a sandboxed command has a /tmp of its own,
 * so a home or an extra folder there would be out of its sight for that reason alone.
 */
export function makeOutsideTmpDir(prefix = 'teamd-test-'): string {
  const dir = fs.mkdtempSync(path.join('/var/tmp', prefix));
  created.push(dir);
  return dir;
}

afterEach(async () => {
  for (const hook of beforeRemove) await hook();
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});
