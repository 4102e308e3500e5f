import fs from 'node:fs';
import { isNodeError, TeamdError } from '../../errors.js';
import { isSameProcessAlive, selfIdentity, type ProcessIdentity } from '../../proc/process-identity.js';
import type { StatePaths } from '../../paths.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { readTextIfExists } from '../../fs/read-text.js';

/** How many tokens of dead writers one write steps over before giving up (each is one failed create). */
const MAX_DEAD_STEPS = 8;

export interface RevisionTokenDeps {
  readonly paths: StatePaths;
  /** A token with no readable writer identity counts as live for this long after it was created. */
  readonly unknownWriterGraceMs: number;
  /** The revision on disk now, read again when a token is found taken (null when the task is gone). */
  readonly currentRev: (id: number) => number | null;
  readonly identity?: ProcessIdentity;
}

/**
 * Every task version has exactly one successor. A writer that read revision r may replace the
 * file only after creating `tasks/.revs/<id>.<r+1>` with O_CREAT|O_EXCL: the kernel lets exactly
 * one process create a name, so of two writers that read the same version (two claimers that
 * both took over one stale lock, or a holder that stalled past its lock), one gets the token and
 * the other gets EEXIST and is refused with CONCURRENT_WRITE before it writes anything.
 *
 * A token whose writer died between creating it and renaming the task file (kill -9) would block
 * the task forever; its identity (pid and start time) says it is dead, and the next writer steps
 * over it to r+2. A live writer's token is never stepped over, even if it is stopped (SIGSTOP).
 */
export class RevisionTokens {
  private readonly identity: ProcessIdentity;
  private readonly body: string;

  constructor(private readonly deps: RevisionTokenDeps) {
    this.identity = deps.identity ?? selfIdentity();
    this.body = `${JSON.stringify(this.identity)}\n`;
  }

  ensureDir(): void {
    ensurePrivateDir(this.deps.paths.revisionsDir);
  }

  /** Takes the token for the version after `fromRev`; returns that version's number, or throws CONCURRENT_WRITE. */
  take(id: number, fromRev: number): number {
    for (let rev = fromRev + 1; rev <= fromRev + MAX_DEAD_STEPS; rev++) {
      if (this.tryCreate(id, rev)) return rev;
      const current = this.deps.currentRev(id);
      if (current === null || current >= rev || current !== fromRev) {
        throw concurrent(id, `revision ${rev} was already written (the task is now at revision ${current ?? 'gone'})`);
      }
      if (this.writerMayLive(id, rev)) throw concurrent(id, `another process is writing revision ${rev} right now`);
      // A dead writer's token that was never committed: step over it.
    }
    throw concurrent(
      id,
      `${MAX_DEAD_STEPS} dead writers' tokens in a row; remove ${this.deps.paths.revisionsDir}/${id}.* by hand if no teamd process is running`,
    );
  }

  /** A new task's first version: false when the id is already taken. */
  takeNew(id: number): boolean {
    return this.tryCreate(id, 0);
  }

  /** Gives back a token this process took but did not commit (its write failed before the rename). */
  drop(id: number, rev: number): void {
    fs.rmSync(this.deps.paths.revisionToken(id, rev), { force: true });
  }

  /**
   * After committing `rev`: the tokens of `rev` and `rev - 1` stay, so a writer one or two versions
   * behind still meets EEXIST; older ones go (a writer that far behind is refused by the byte check).
   */
  prune(id: number, rev: number): void {
    if (rev < 2) return;
    try {
      fs.unlinkSync(this.deps.paths.revisionToken(id, rev - 2));
    } catch (error) {
      if (!isNodeError(error, 'ENOENT')) throw error;
    }
  }

  private tryCreate(id: number, rev: number): boolean {
    let fd: number;
    try {
      fd = fs.openSync(this.deps.paths.revisionToken(id, rev), 'wx', 0o600);
    } catch (error) {
      if (isNodeError(error, 'EEXIST')) return false;
      if (isNodeError(error, 'ENOENT')) {
        this.ensureDir();
        return this.tryCreate(id, rev);
      }
      throw new TeamdError('IO', `cannot create the revision token ${this.deps.paths.revisionToken(id, rev)}: ${(error as Error).message}`, { cause: error });
    }
    try {
      fs.writeSync(fd, this.body);
    } catch (error) {
      // A token without its writer (a full disk) would read as being written right now and hold
      // the task for the grace period: it was never used, so it goes.
      try {
        fs.closeSync(fd);
      } finally {
        fs.rmSync(this.deps.paths.revisionToken(id, rev), { force: true });
      }
      throw new TeamdError('IO', `cannot write the revision token ${this.deps.paths.revisionToken(id, rev)}: ${(error as Error).message}`, { cause: error });
    }
    fs.closeSync(fd);
    return true;
  }

  private writerMayLive(id: number, rev: number): boolean {
    const file = this.deps.paths.revisionToken(id, rev);
    let raw: string | null;
    let mtimeMs: number;
    try {
      raw = readTextIfExists(file);
      mtimeMs = fs.statSync(file).mtimeMs;
    } catch {
      return true; // changing under us: some live process is at work here
    }
    if (raw === null) return true;
    const writer = parseIdentity(raw);
    if (writer) return isSameProcessAlive(writer);
    // Created but not written yet (or the writer died in between): give it the grace period.
    return Date.now() - mtimeMs < this.deps.unknownWriterGraceMs;
  }
}

function parseIdentity(raw: string): ProcessIdentity | null {
  try {
    const json = JSON.parse(raw) as { pid?: unknown; start?: unknown };
    if (typeof json.pid !== 'number' || !Number.isInteger(json.pid) || json.pid <= 0) return null;
    return { pid: json.pid, start: typeof json.start === 'number' ? json.start : null };
  } catch {
    return null;
  }
}

function concurrent(id: number, why: string): TeamdError {
  return new TeamdError('CONCURRENT_WRITE', `task ${id} was changed by another process (${why}); retry the command`, { details: { id } });
}
