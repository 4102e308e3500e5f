import type { Bell, TeamStore } from '../../contracts/team-store.js';
import type { Logger } from '../../log/logger.js';
import type { StatePaths } from '../../paths.js';
import { Doorbell } from '../../watch/doorbell.js';

/**
 * A bell for a view of the whole team (teamd watch, teamd ui): the roster, the task files (live and
 * finished: a merge changes a finished one) and the inboxes (not the logs, which change all the time); a PostgreSQL store's board and inboxes are
 * not files, so its notifications ring it too.
 */
export async function openViewBell(paths: StatePaths, store: Pick<TeamStore, 'listen'>, logger: Logger): Promise<Bell> {
  const shows = (file: string): boolean => file === paths.config || /\/task_\d+\.json$|\.jsonl$/.test(file);
  const bell = await Doorbell.open({ dirs: [paths.root, paths.tasksDir, paths.doneDir, paths.inboxDir], accept: shows, logger });
  const listening = await store.listen(
    () => true,
    () => bell.ring(),
  );
  if (listening) bell.onClose(() => listening.close());
  return bell;
}
