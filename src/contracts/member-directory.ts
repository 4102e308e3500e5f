import type { Member } from './roster.js';

/** A member as the team's store lists it: which host runs it, and when that host last showed it was alive. */
export interface StoredMember {
  readonly member: Member;
  /** The host whose daemon supervises it; null in the file store (one host). */
  readonly host: string | null;
}

/**
 * The team's roster across hosts. Each host's daemon keeps its own members in its config.json
 * and publishes them here; the file store's roster is config.json itself, so it publishes nothing.
 */
export interface MemberDirectory {
  /** Makes the store's list of `host`'s members this one (members of other hosts are left alone). */
  publish(host: string, members: readonly Member[]): Promise<void>;
  list(): Promise<StoredMember[]>;
}
