import fs from 'node:fs';
import path from 'node:path';
import { writtenNotSynced } from '../errors.js';
import { entropy } from '../platform/random-id.js';

/** Temp files are dot-prefixed and end in .tmp so listings never mistake them for data. */
export function isTempFile(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/**
 * Writes a file whole or not at all: temp file in the same folder (wx), write, fsync, close,
 * rename over the target, then fsync the folder so the rename itself survives a crash.
 * `beforeRename` runs just before the rename; if it throws, the temp file is removed. Any failure
 * up to the rename leaves the target as it was; one after it (the folder's sync) is a
 * writtenNotSynced error: the new file is in place.
 * Synchronous on purpose: callers hold a lock, and no timer may run between check and write.
 */
export function writeFileAtomicSync(target: string, data: string, beforeRename?: () => void): void {
  writeWhole(target, data, true, beforeRename);
}

/**
 * Writes a file whole or not at all (temp file + rename), without waiting for the disk: for a
 * file derived from others, which a crash may lose or leave as it was before, never torn.
 */
export function writeFileWholeSync(target: string, data: string): void {
  writeWhole(target, data, false);
}

function writeWhole(target: string, data: string, durable: boolean, beforeRename?: () => void): void {
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${entropy.hex(4)}.tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.writeSync(fd, data);
    if (durable) fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  try {
    // Last check with the new bytes safely on disk: throwing here leaves the target untouched.
    beforeRename?.();
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  if (!durable) return;
  try {
    fsyncDirSync(dir);
  } catch (error) {
    throw writtenNotSynced(target, error);
  }
}

export function fsyncDirSync(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/**
 * Removes the temp files of writers that died between writing and renaming (kill -9): their
 * names carry the writer's pid, so a live writer's file is never touched. Returns what went.
 */
export function sweepDeadTempFiles(dirs: readonly string[], isAlive: (pid: number) => boolean): string[] {
  const removed: string[] = [];
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = TEMP_NAME.exec(name);
      if (!match || isAlive(Number(match[1]))) continue;
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(path.join(dir, name));
    }
  }
  return removed;
}
