import type { TaskBoard } from '../contracts/task-board.js';
import type { Task } from '../contracts/task.js';
import type { Logger } from '../log/logger.js';
import type { WakeTracker } from './wake-tracker.js';

export interface NextTaskDeps {
  readonly name: string;
  readonly board: TaskBoard;
  readonly wakes: WakeTracker;
  readonly logger: Logger;
  /** True while the daemon has looked at the board since it last changed (store/files/look-marker.ts). */
  readonly daemonCoversBoard?: (() => boolean) | undefined;
}

/**
 * Which task an idle teammate takes next: one it still owns (from the owner index; once per
 * process, so it never hot-loops on one the model left open), else a claim — the tasks the
 * daemon's bells named first, then a scan of the live folder. A safety re-check does not scan
 * while the daemon has looked at the board since it last changed: the daemon rings for every
 * ready task it sees.
 */
export class NextTask {
  constructor(private readonly deps: NextTaskDeps) {}

  async find(worked: ReadonlySet<number>, gaveUp: readonly number[], recheck: boolean): Promise<{ task: Task; resumed: boolean } | null> {
    const { board, name, wakes } = this.deps;
    const own = (await board.ownedBy(name)).find((task) => !worked.has(task.id));
    if (own) return { task: own, resumed: true };
    const prefer = wakes.takeHints();
    if (recheck && prefer.length === 0 && this.deps.daemonCoversBoard?.()) return null;
    const claimed = await board.claimNext(name, { skip: new Set(gaveUp), prefer });
    if (!claimed) return null;
    // The CPU this process spent from its wake-up to the claim (npm run bench -- scale reads it).
    this.deps.logger.info({ taskId: claimed.id, claim: claimed.claim, wakeCpuUs: wakes.cpuSinceWake() }, 'task claimed');
    return { task: claimed, resumed: false };
  }
}
