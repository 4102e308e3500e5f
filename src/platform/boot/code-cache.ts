import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** How long after start a process whose cache was missing or refused writes a new one (or at exit, if sooner). */
export const SAVE_AFTER_MS = 3_000;

/** What Module.wrap makes of a CommonJS file: called as Node calls a module. */
export type ModuleWrapper = (exports: unknown, require: NodeJS.Require, module: NodeJS.Module, filename: string, dirname: string) => void;

export interface CompiledFile {
  readonly script: vm.Script;
  /** The cache file for this file, role, Node version and V8 flags. */
  readonly cacheFile: string;
  /** The cache was missing or V8 refused it. */
  readonly stale: boolean;
  /** It was missing (not refused): one that appears meanwhile is another process's, left as it is. */
  readonly missing: boolean;
}

/** Where a file's caches go: a folder, and the file's name there. */
export interface CachePlace {
  readonly dir: string;
  readonly name: string;
}

/** The `.cache/` folder beside the file, under the file's own name. */
export function besideFile(file: string): CachePlace {
  return { dir: path.join(path.dirname(file), '.cache'), name: path.basename(file) };
}

/**
 * Compiles one CommonJS file, wrapped as Node wraps a module, with V8's code cache: the bytecode a
 * previous run of the same role compiled (by default in the `.cache/` folder beside the file), so
 * this one does not parse and compile it again (docs/architecture.md, "Code cache"). Node 20 has
 * no such cache of its own for our code. The role is what the process does (the CLI's command,
 * `teammate`), so `teamd status` does not start from `teamd start`'s cache; lowercase letters,
 * digits and dashes, anything else shares `other`.
 *
 * The cache's name holds everything that makes it invalid: the file's size and time, Node's
 * version, the V8 flags, the role. V8 checks it again and refuses one that does not fit (another
 * V8, flags, source length, a torn or foreign file); a refused or missing cache only means
 * compiling as without one, and a new one written (CacheSaver) once the run has compiled what it
 * uses. A folder we cannot write leaves the run uncached, never failed.
 */
export function compileCached(file: string, role: string, place: CachePlace = besideFile(file)): CompiledFile {
  const stat = fs.statSync(file);
  const cacheFile = path.join(place.dir, `${place.name}-${roleName(role)}-${cacheKey(stat)}.bin`);
  let cachedData: Buffer | undefined = readIfThere(cacheFile);
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
    // A net only: the bundles load late with require (src/platform/lazy-builtin.ts). Node 20 answers an
    // import() here from a CommonJS start file, with an experimental-feature warning.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const missing = cachedData === undefined;
  // Not kept: the buffer is garbage once V8 has read it.
  cachedData = undefined;
  return { script, cacheFile, stale: missing || script.cachedDataRejected === true, missing };
}

/**
 * Writes the caches of stale files once they have compiled what they use: `afterMs` (by default
 * SAVE_AFTER_MS) after the first of a batch was added, or at exit, whichever comes first; never what keeps the process
 * alive. A file loaded later (a chunk loaded on first use) starts a batch of its own. A cache that
 * was missing and has appeared since (processes started at once after a build) is left to whoever
 * wrote it.
 */
export class CacheSaver {
  private readonly pending: CompiledFile[] = [];
  private timer: NodeJS.Timeout | null = null;
  private hooked = false;

  constructor(private readonly afterMs: number = SAVE_AFTER_MS) {}

  add(compiled: CompiledFile): void {
    this.pending.push(compiled);
    if (!this.hooked) {
      this.hooked = true;
      process.once('exit', () => this.flush());
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), this.afterMs);
      this.timer.unref();
    }
  }

  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const { script, cacheFile, missing } of this.pending.splice(0)) {
      try {
        if (missing && fs.existsSync(cacheFile)) continue;
        writeWhole(cacheFile, script.createCachedData());
      } catch {
        // Never a reason for the process to fail or change its exit: the next run compiles anew.
      }
    }
  }
}

function writeWhole(file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(temp, data);
    fs.renameSync(temp, file);
  } catch {
    // A read-only installation or a full disk: the next run compiles as this one did.
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // nothing more to undo
    }
  }
}

function readIfThere(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function roleName(role: string): string {
  return /^[a-z0-9][a-z0-9-]{0,31}$/.test(role) ? role : 'other';
}

/** FNV-1a of what makes a cache invalid (loading crypto would cost a start more than hashing saves). */
function cacheKey(stat: fs.Stats): string {
  // V8 itself checks only the source's length: a bundle rebuilt to the same length must not match.
  const text = [
    process.version,
    process.arch,
    stat.size,
    stat.mtimeMs,
    stat.ctimeMs,
    stat.ino,
    process.execArgv.join(' '),
    process.env.NODE_OPTIONS ?? '',
  ].join('\n');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
