import { PROTECTED_WORKSPACE_PATHS } from '../sandbox/sandbox-places.js';
import fs from 'node:fs';
import { readSliceAndClose } from '../fs/read-text.js';
import path from 'node:path';
import { entropy } from '../platform/random-id.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;

/** Entries a hard-linked file's names are looked for among, at most, before its read is refused. */
const LINK_SCAN_ENTRIES = 200_000;

/** A path the file tools refuse, with the reason to show the model. */
export class WorkspacePathError extends Error {
  override readonly name = 'WorkspacePathError';
}

interface DirId {
  readonly dev: number;
  readonly ino: number;
}

/**
 * File access confined to the workspace without check-then-use. A path is walked one
 * component at a time from an open handle on the workspace, each component opened with
 * O_NOFOLLOW relative to the folder handle before it (through /proc/self/fd/<fd>/<name>,
 * Node's stand-in for openat): a symlink swapped in at any point after a check cannot
 * redirect the open, because nothing is ever looked up by its full path again. Folders that
 * are off limits (the state folder, whatever its name) are recognised by identity (device and
 * inode), so a rename or a second path to them does not help either. Linux only (/proc).
 */
export class WorkspaceFs {
  readonly root: string;

  constructor(
    workspace: string,
    private readonly offLimits: readonly string[],
  ) {
    this.root = fs.realpathSync(workspace);
  }

  /** The text of a file, or part of it. */
  read(requested: string, offset = 0, max = Number.MAX_SAFE_INTEGER): { text: string; size: number; length: number } {
    const fd = this.open(requested, O_RDONLY, false);
    try {
      this.refuseOutsideLinks(fd, requested);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    return readSliceAndClose(fd, offset, max);
  }

  /**
   * A file with more than one name is read only when every name is inside the workspace: a hard
   * link made in the workspace to a file outside it (a key, another team's state) would read that
   * file. The names inside are counted by a walk of the workspace, bounded; past the bound, or with
   * a name left unfound, the read is refused (writes replace the name, never the linked file).
   */
  private refuseOutsideLinks(fd: number, requested: string): void {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.nlink <= 1) return;
    const inside = this.namesInside(stat, stat.nlink);
    if (inside < stat.nlink)
      throw new WorkspacePathError(
        `${requested} is a hard link: the file has ${stat.nlink} names and ${inside} of them were found in the workspace; file tools do not read a file that has a name outside it`,
      );
  }

  /** How many entries of the workspace (symlinks and off-limits folders not followed) are the file `target`, stopping at `enough`. */
  private namesInside(target: { dev: number; ino: number }, enough: number): number {
    let found = 0;
    let visited = 0;
    const pending = [this.root];
    while (pending.length > 0 && found < enough && visited < LINK_SCAN_ENTRIES) {
      const dir = pending.pop()!;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        visited++;
        const full = path.join(dir, entry.name);
        const stat = fs.lstatSync(full, { throwIfNoEntry: false });
        if (!stat) continue;
        if (stat.isDirectory() && !this.isOffLimits(stat)) pending.push(full);
        else if (stat.isFile() && stat.dev === target.dev && stat.ino === target.ino) found++;
      }
    }
    return found;
  }

  /** Replaces a file whole (temp file + rename in the same folder handle), creating its folders. */
  writeAtomic(requested: string, content: string): void {
    this.refuseProtected(requested);
    const { dirFd, name } = this.walk(requested, true);
    try {
      const dir = `/proc/self/fd/${dirFd}`;
      const temp = `.${name}.${process.pid}.${entropy.hex(4)}.tmp`;
      const fd = fs.openSync(`${dir}/${temp}`, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
      try {
        fs.writeSync(fd, content);
        fs.fsyncSync(fd);
      } catch (error) {
        fs.closeSync(fd);
        fs.rmSync(`${dir}/${temp}`, { force: true });
        throw error;
      }
      fs.closeSync(fd);
      try {
        // rename replaces a symlink at the target itself; it never writes through one.
        fs.renameSync(`${dir}/${temp}`, `${dir}/${name}`);
      } catch (error) {
        fs.rmSync(`${dir}/${temp}`, { force: true });
        throw error;
      }
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  }

  /**
   * Refuses a write to what the person's own tools run or obey outside any sandbox: git's hooks
   * and config, Claude Code's and the editors' settings (sandbox-places.ts; commands cannot
   * write them either). teamd reads .claude/settings.json: a teammate must not widen its own rules.
   */
  private refuseProtected(requested: string): void {
    const relative = this.parts(requested).join('/');
    const hit = PROTECTED_WORKSPACE_PATHS.find((place) => relative === place || relative.startsWith(`${place}/`));
    if (hit)
      throw new WorkspacePathError(
        `${requested} is in ${hit}, which the person's own tools run or obey: file tools and commands do not change it; ask the lead`,
      );
  }

  /** Whether a folder met while walking the workspace is off limits (compared by identity). */
  isOffLimits(stat: { dev: number; ino: number }): boolean {
    return this.offLimitIds().some((id) => id.dev === stat.dev && id.ino === stat.ino);
  }

  /** The workspace-relative parts of a requested path; refuses paths that leave the workspace. */
  parts(requested: string): string[] {
    if (requested.includes('\0')) throw new WorkspacePathError(`path ${JSON.stringify(requested)} contains a NUL byte`);
    const absolute = path.resolve(this.root, requested);
    const relative = path.relative(this.root, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative))
      throw new WorkspacePathError(`path ${JSON.stringify(requested)} is outside the workspace ${this.root}`);
    return relative === '' ? [] : relative.split(path.sep);
  }

  private open(requested: string, flags: number, create: boolean): number {
    const { dirFd, name } = this.walk(requested, create);
    try {
      return fs.openSync(`/proc/self/fd/${dirFd}/${name}`, flags | O_NOFOLLOW);
    } catch (error) {
      throw describe(error, requested);
    } finally {
      fs.closeSync(dirFd);
    }
  }

  /** Opens the folder that holds the requested file, component by component, never following a symlink. */
  private walk(requested: string, create: boolean): { dirFd: number; name: string } {
    const parts = this.parts(requested);
    const name = parts.pop();
    if (name === undefined) throw new WorkspacePathError(`path ${JSON.stringify(requested)} is the workspace folder itself, not a file`);
    let dirFd = fs.openSync(this.root, O_RDONLY | O_DIRECTORY);
    try {
      this.refuseOffLimits(dirFd, requested);
      for (const part of parts) {
        const next = `/proc/self/fd/${dirFd}/${part}`;
        if (create) {
          try {
            fs.mkdirSync(next, { mode: 0o755 });
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw describe(error, requested);
          }
        }
        let fd: number;
        try {
          fd = fs.openSync(next, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        } catch (error) {
          throw describe(error, requested);
        }
        fs.closeSync(dirFd);
        dirFd = fd;
        this.refuseOffLimits(dirFd, requested);
      }
      return { dirFd, name };
    } catch (error) {
      fs.closeSync(dirFd);
      throw error;
    }
  }

  private refuseOffLimits(dirFd: number, requested: string): void {
    if (this.isOffLimits(fs.fstatSync(dirFd))) {
      throw new WorkspacePathError(
        `path ${JSON.stringify(requested)} is inside the team's state folder, which is not for file tools: use the task and message tools`,
      );
    }
  }

  private offLimitIds(): DirId[] {
    const ids: DirId[] = [];
    for (const dir of this.offLimits) {
      try {
        const stat = fs.statSync(dir);
        ids.push({ dev: stat.dev, ino: stat.ino });
      } catch {
        // not there (yet): nothing to protect
      }
    }
    return ids;
  }
}

function describe(error: unknown, requested: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'ENOTDIR') {
    return new WorkspacePathError(`path ${JSON.stringify(requested)} goes through a symlink or a non-folder; file tools do not follow symlinks`);
  }
  if (code === 'ENOENT') return new WorkspacePathError(`cannot open ${requested}: no such file or folder`);
  return error instanceof Error ? error : new Error(String(error));
}
