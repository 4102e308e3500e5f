import type { Logger } from '../log/logger.js';
import { Doorbell } from '../watch/doorbell.js';
import type { Bell, BellScope, TeamStore } from '../contracts/team-store.js';
import type { StatePaths } from '../paths.js';

/** The file store's bell: a watch on one inbox file, or plain watches on the inbox and task folders. */
export function fileBell(paths: StatePaths, logger: Logger): TeamStore['bell'] {
  return async (scope, options = {}) =>
    Doorbell.open({
      ...('inbox' in scope ? { files: [paths.inboxFile(scope.inbox)] } : { dirs: [paths.inboxDir, paths.tasksDir, ...(scope.done ? [paths.doneDir] : [])] }),
      ...(options.rescanMs === undefined ? {} : { rescanMs: options.rescanMs }),
      logger,
    });
}

/** A store's bell rung by its notifications (PostgreSQL's LISTEN): a teammate's for messages to it, the team's for every change. */
export function notifiedBell(listen: TeamStore['listen'], logger: Logger): TeamStore['bell'] {
  return async (scope: BellScope, options = {}): Promise<Bell> => {
    const bell = await Doorbell.open({ ...(options.rescanMs === undefined ? {} : { rescanMs: options.rescanMs }), logger });
    const listening = await listen('inbox' in scope ? (event) => event.kind === 'message' && event.to === scope.inbox : () => true, () =>
      bell.ring('change', false),
    );
    if (listening) bell.onClose(() => listening.close());
    return bell;
  };
}
