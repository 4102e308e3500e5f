import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];
const beforeRemove: (() => Promise<void>)[] = [];
const beforeRemoveOnce: (() => Promise<void>)[] = [];

/** Runs before temp folders are removed (e.g. stopping daemons that write into them), after every test. */
export function onBeforeTempRemoval(hook: () => Promise<void>): void {
  beforeRemove.push(hook);
}

/**
 * Runs once, before this test's temp folders are removed: the clean-up of what the test started
 * in them (its daemons, then their database). vitest's onTestFinished runs only after the
 * afterEach below has removed the folders: a daemon whose folder is gone cannot be stopped by
 * it, and runs on.
 */
export function beforeThisTestsFoldersGo(hook: () => Promise<void>): void {
  beforeRemoveOnce.push(hook);
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
  for (const hook of beforeRemoveOnce.splice(0)) await hook();
  for (const hook of beforeRemove) await hook();
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});
