import fs from 'node:fs';
import { errorWithCode, isTeamdError, TeamdError } from '../errors.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { readConfig } from './roster.js';
import { configSchema, type Member, type TeamConfig } from '../contracts/roster.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { isoTime } from '../platform/iso-time.js';

export interface RosterStoreOptions {
  readonly logger?: Logger;
  /** Waits between retries of a write the disk refused: doubling from the first to the cap. */
  readonly retryFirstMs?: number;
  readonly retryMaxMs?: number;
  /** Called with every roster the daemon takes (on disk or not yet): a shared store publishes its members. */
  readonly onChange?: (config: TeamConfig) => void;
}

/** Why the roster on disk is behind the daemon's, for `teamd status`. */
export interface RosterHealth {
  readonly writeFailing: string | null;
  readonly since: string | null;
}

/**
 * The roster as the daemon keeps it. The daemon is its only writer (one daemon per state
 * folder, guarded by the pid file); every write is whole (temp + rename).
 *
 * The daemon must outlive its disk's bad moments: when a write fails (disk full, read-only)
 * the change stays in effect in memory, is reported once, and is written again with backoff
 * until the disk takes it; when someone damages config.json while the daemon runs, the last
 * good roster stays in use, the damaged file is moved aside (never lost) at the next write.
 * A write the caller needs on disk before it answers (a spawn) is refused instead.
 */
export class RosterStore {
  private last: TeamConfig | null = null;
  private pending = false;
  private damagedOnDisk = false;
  private reportedDamage: string | null = null;
  private failure: { message: string; since: string } | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelayMs: number;

  constructor(
    private readonly paths: StatePaths,
    private readonly options: RosterStoreOptions = {},
  ) {
    this.retryDelayMs = options.retryFirstMs ?? 500;
  }

  read(): TeamConfig {
    // While a write is pending, the disk is behind: memory is the roster.
    if (this.pending && this.last) return this.last;
    try {
      const config = readConfig(this.paths.config);
      this.last = config;
      this.damagedOnDisk = false;
      return config;
    } catch (error) {
      if (!this.last || !(isTeamdError(error, 'CONFIG_CORRUPT') || isTeamdError(error, 'IO'))) throw error;
      if (isTeamdError(error, 'CONFIG_CORRUPT')) this.damagedOnDisk = true;
      if (this.reportedDamage !== error.message) {
        this.reportedDamage = error.message;
        this.options.logger?.error(
          { file: this.paths.config, err: error },
          `${error.message}; the daemon keeps its last good roster and sets the damaged file aside at its next write`,
        );
      }
      return this.last;
    }
  }

  update(change: (config: TeamConfig) => TeamConfig, options: { mustPersist?: boolean } = {}): TeamConfig {
    const previous = this.read();
    const next = configSchema.parse(change(previous));
    this.last = next;
    this.options.onChange?.(next);
    try {
      this.persist(next);
    } catch (error) {
      if (options.mustPersist) {
        this.last = previous;
        throw new TeamdError('IO', `cannot write ${this.paths.config}: ${(error as Error).message}; free some disk space (or make it writable) and retry`, {
          cause: error,
        });
      }
      this.failed(error as Error);
    }
    return next;
  }

  health(): RosterHealth {
    return { writeFailing: this.failure?.message ?? null, since: this.failure?.since ?? null };
  }

  /** Stops retrying (the daemon is stopping); a last attempt is made first. */
  close(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.pending && this.last) this.retry();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  member(name: string): Member | undefined {
    return this.read().members.find((member) => member.name === name);
  }

  requireMember(name: string): Member {
    const member = this.member(name);
    if (member) return member;
    const names = this.read().members.map((m) => m.name);
    throw new TeamdError('UNKNOWN_MEMBER', `no teammate named "${name}" on the roster${names.length ? ` (members: ${names.join(', ')})` : ' (it is empty)'}`, {
      details: { name },
    });
  }

  /** Creates or replaces one member's entry, keeping the others and their order. */
  upsertMember(name: string, patch: Partial<Member> & Pick<Member, 'role' | 'status'>, options: { mustPersist?: boolean } = {}): TeamConfig {
    return this.update((config) => {
      const existing = config.members.find((member) => member.name === name);
      const members = existing
        ? config.members.map((member) => (member.name === name ? { ...member, ...patch, name } : member))
        : [...config.members, { name, ...patch }];
      return { ...config, members };
    }, options);
  }

  patchMember(name: string, patch: Partial<Member>): TeamConfig {
    return this.update((config) => ({
      ...config,
      members: config.members.map((member) => (member.name === name ? { ...member, ...patch, name } : member)),
    }));
  }

  private persist(config: TeamConfig): void {
    ensurePrivateDir(this.paths.root);
    if (this.damagedOnDisk) {
      const aside = `${this.paths.config}.damaged-${isoTime().replace(/[:.]/g, '-')}`;
      fs.renameSync(this.paths.config, aside);
      this.damagedOnDisk = false;
      this.options.logger?.warn({ file: this.paths.config, aside }, "moved the damaged roster aside; writing the daemon's own");
    }
    writeFileAtomicSync(this.paths.config, `${JSON.stringify(config, null, 2)}\n`);
    if (this.pending || this.failure) this.options.logger?.info({ file: this.paths.config }, 'roster written again');
    this.pending = false;
    this.failure = null;
    this.retryDelayMs = this.options.retryFirstMs ?? 500;
  }

  private failed(error: Error): void {
    if (!this.failure) {
      this.failure = { message: errorWithCode(error), since: isoTime() };
      this.options.logger?.error(
        { file: this.paths.config, err: error },
        `cannot write ${this.paths.config}; the daemon keeps running and retries with backoff`,
      );
    }
    this.pending = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retry();
    }, this.retryDelayMs);
    this.retryTimer.unref();
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, this.options.retryMaxMs ?? 30_000);
  }

  private retry(): void {
    if (!this.last) return;
    try {
      this.persist(this.last);
    } catch {
      this.schedule();
    }
  }
}
