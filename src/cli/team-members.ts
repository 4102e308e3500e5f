import type { HostView } from '../contracts/host-registry.js';
import type { TeamStore } from '../contracts/team-store.js';
import { remoteMemberView, type MemberView } from './member-view.js';

/**
 * The members other hosts' daemons run, from a shared store (none with the file store), each
 * `lost` once its host's lease ran out. An unreachable store gives none: the caller says so.
 */
export async function otherHostsMembers(
  store: TeamStore,
  local: readonly MemberView[],
  teamModel: string,
): Promise<{ members: MemberView[]; hosts: HostView[] }> {
  if (!store.shared) return { members: [], hosts: [] };
  const own = store.shared.host;
  const hosts = await (store.hosts?.list() ?? Promise.resolve([])).catch(() => []);
  const listed = await store.members.list().catch(() => []);
  const members = listed
    .filter(({ member, host }) => host !== null && host !== own && !local.some((m) => m.name === member.name))
    .map(({ member, host }) => remoteMemberView(member, host!, hosts.find((h) => h.host === host)?.lost ?? false, teamModel));
  return { members, hosts };
}

/** The host whose daemon runs `name`, when it is another than this one (a shared store). */
export async function otherHostOf(store: TeamStore, name: string): Promise<string | null> {
  if (!store.shared) return null;
  const own = store.shared.host;
  const found = (await store.members.list()).find((entry) => entry.member.name === name);
  return found?.host && found.host !== own ? found.host : null;
}
