import fs from 'node:fs';
import path from 'node:path';
import { isNodeError, TeamdError } from '../../errors.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { touchRegular } from '../../fs/open-regular.js';
import type { StatePaths } from '../../paths.js';

/**
 * Which tasks each teammate holds, without listing the board: `tasks/owners/<name>/<id>`, one
 * empty file per task in progress. Kept under the task's lock by every write: the marker is made
 * before the task file says "in progress, owned by <name>" and removed only after it no longer
 * does, so a writer killed in between leaves one marker too many, never one too few. Readers
 * check every marker against the task itself; a marker whose task is finished or gone is removed
 * (by the owner's own process, or by the daemon while the owner is not running).
 */
export class OwnerIndex {
  private readonly madeDirs = new Set<string>();

  constructor(private readonly paths: StatePaths) {}

  add(name: string, id: number): void {
    const file = this.paths.ownerMarker(name, id);
    const dir = path.dirname(file);
    if (!this.madeDirs.has(dir)) {
      ensurePrivateDir(dir);
      this.madeDirs.add(dir);
    }
    try {
      touchRegular(file);
    } catch (error) {
      if (isNodeError(error, 'ENOENT')) {
        // The folder was removed by hand since: make it again, once.
        this.madeDirs.delete(dir);
        ensurePrivateDir(dir);
        touchRegular(file);
        return;
      }
      throw new TeamdError('IO', `cannot write the owner index entry ${file}: ${(error as Error).message}`, { cause: error });
    }
  }

  remove(name: string, id: number): void {
    try {
      fs.unlinkSync(this.paths.ownerMarker(name, id));
    } catch (error) {
      if (!isNodeError(error, 'ENOENT')) throw new TeamdError('IO', `cannot update the owner index of ${name}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Task ids the index lists for `name`, ascending (some may no longer be theirs: check each). */
  idsOf(name: string): number[] {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(this.paths.ownersDir, name));
    } catch (error) {
      if (isNodeError(error, 'ENOENT') || isNodeError(error, 'ENOTDIR')) return [];
      throw new TeamdError('IO', `cannot read the owner index of ${name}: ${(error as Error).message}`, { cause: error });
    }
    const ids: number[] = [];
    for (const entry of names) if (/^[1-9]\d*$/.test(entry)) ids.push(Number(entry));
    return ids.sort((a, b) => a - b);
  }
}
