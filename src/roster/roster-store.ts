import fs from 'node:fs';
import { TeamdError } from '../errors.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { StatePaths } from '../paths.js';
import { configSchema, readConfig, type Member, type TeamConfig } from './roster.js';

/**
 * The roster as the daemon keeps it. The daemon is its only writer (one daemon per state
 * folder, guarded by the pid file); every write is whole (temp + rename).
 */
export class RosterStore {
  constructor(private readonly paths: StatePaths) {}

  read(): TeamConfig {
    return readConfig(this.paths.config);
  }

  update(change: (config: TeamConfig) => TeamConfig): TeamConfig {
    const next = configSchema.parse(change(this.read()));
    fs.mkdirSync(this.paths.root, { recursive: true, mode: 0o700 });
    writeFileAtomicSync(this.paths.config, `${JSON.stringify(next, null, 2)}\n`);
    return next;
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
  upsertMember(name: string, patch: Partial<Member> & Pick<Member, 'role' | 'status'>): TeamConfig {
    return this.update((config) => {
      const existing = config.members.find((member) => member.name === name);
      const members = existing
        ? config.members.map((member) => (member.name === name ? { ...member, ...patch, name } : member))
        : [...config.members, { name, ...patch }];
      return { ...config, members };
    });
  }

  patchMember(name: string, patch: Partial<Member>): TeamConfig {
    return this.update((config) => ({
      ...config,
      members: config.members.map((member) => (member.name === name ? { ...member, ...patch, name } : member)),
    }));
  }
}
