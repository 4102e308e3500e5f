import fs from 'node:fs';
import path from 'node:path';
import { CHROMIUM_ARGS } from '../../bench/chromium.js';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from './processes.js';

/** Debian's chromium (apt-get install -y chromium), or the one $CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null. In CI a missing browser is a failure: .ci/run installs it. */
export function missingBrowser(): string | null {
  if (fs.existsSync(CHROMIUM)) return null;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
  if (process.env.CI) throw new Error(`${reason}: .ci/run installs it, so in CI the browser tests must run`);
  process.stderr.write(`browser tests SKIPPED: ${reason}\n`);
  return reason;
}

/**
 * Headless Chromium as this machine allows it: as root without its own sandbox, and with none of
 * its background connections (the machine's closed network refuses them, many at a time).
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
}

/** Where the tests put their screenshots: test/artifacts/screenshots (CI keeps the folder; git ignores it). */
export function screenshotPath(name: string): string {
  const dir = path.join(REPO_ROOT, 'test', 'artifacts', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}
