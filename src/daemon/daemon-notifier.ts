import path from 'node:path';
import type { Notice } from '../contracts/notifications.js';
import { notificationsSettingSchema } from '../contracts/notifications.js';
import type { TeamStore } from '../contracts/team-store.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import type { RosterStore } from '../roster/roster-store.js';
import { NoticeHooks } from '../notify/notice-hooks.js';
import { Notifier } from '../notify/notifier.js';
import type { Post } from '../notify/webhook.js';

const DEFAULTS = notificationsSettingSchema.parse({});

/**
 * Where several hosts share the team, each notice is told by one: the host of the teammate it is
 * about; a notice about no teammate (a stuck board), or one the store does not place, by the
 * first of the live hosts by name.
 */
export function noticeOwner(store: Pick<TeamStore, 'shared' | 'hosts' | 'members'>): (notice: Notice) => Promise<boolean> {
  const shared = store.shared;
  if (!shared || !store.hosts) return async () => true;
  const hosts = store.hosts;
  return async (notice) => {
    if (notice.teammate !== null) {
      const placed = (await store.members.list()).find((entry) => entry.member.name === notice.teammate);
      if (placed?.host) return placed.host === shared.host;
    }
    const live = (await hosts.list())
      .filter((host) => !host.lost && !host.stopped)
      .map((host) => host.host)
      .sort();
    return (live[0] ?? shared.host) === shared.host;
  };
}

/** The daemon's notifications, when the settings have `notifications` (docs/notifications.md); null otherwise. */
export async function startNotifications(parts: {
  readonly paths: StatePaths;
  readonly store: TeamStore;
  readonly roster: RosterStore;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  readonly post?: Post;
}): Promise<Notifier | null> {
  const { paths, store, roster } = parts;
  if (!roster.read().settings.notifications) return null;
  const logger = parts.logger.child({ component: 'notify' });
  const notifier = new Notifier({
    store,
    paths,
    logger,
    team: store.shared?.team ?? path.basename(path.dirname(paths.root)),
    setting: () => roster.read().settings.notifications ?? DEFAULTS,
    view: () => {
      const { members, settings } = roster.read();
      return { members, leadAnswers: settings.leadAnswers, stuckAfterMs: (settings.notifications ?? DEFAULTS).stuckAfterMs };
    },
    owns: noticeOwner(store),
    hooks: new NoticeHooks({ paths, env: parts.env, execPath: process.execPath, pid: process.pid, logger, roster: () => roster.read() }),
    ...(parts.post ? { post: parts.post } : {}),
  });
  await notifier.start();
  return notifier;
}
