import type { TaskBoard } from '../contracts/task-board.js';
import type { Logger } from '../log/logger.js';
import type { RosterStore } from '../roster/roster-store.js';
import type { MemberWork } from './member-work.js';
import { chooseWakeUps } from './wake-policy.js';
import { WorkBells } from './work-bells.js';
import { RingTurns } from './ring-turns.js';

export interface WorkHandoutDeps {
  readonly roster: Pick<RosterStore, 'read'>;
  readonly board: TaskBoard;
  readonly work: MemberWork;
  readonly logger: Logger;
  /** A member runs, or is about to (a restart is pending). */
  readonly hasProcess: (name: string) => boolean;
  /** Forks a sleeping member. */
  readonly launch: (name: string) => void;
  /** Rings a running teammate over IPC: ready work, `task` first. */
  readonly ring: (name: string, task: number) => void;
  /** Records that a look at the whole board began at this time (store/files/look-marker.ts). */
  readonly markLooked?: ((startedAt: number) => void) | undefined;
  readonly afterLook?: (() => Promise<void>) | undefined;
  readonly now: () => number;
  /** Several hosts: whether a ready task is this host's turn to ring for at once (ring-turns.ts); absent: every task is. */
  readonly isTurn?: ((id: number) => boolean) | undefined;
  /** Looks again in `ms` (a held task comes due). */
  readonly lookIn?: ((ms: number) => void) | undefined;
}

/**
 * Hands out work when it appears (a change in tasks/ or inbox/, a teammate went idle or exited):
 * wakes sleepers that have mail or work of their own, or are needed for ready tasks, and rings as
 * many idle teammates as there are ready tasks nobody is on the way to — not everyone. The
 * supervisor owns the processes; this decides whom they are needed for.
 */
export class WorkHandout {
  private readonly bells: WorkBells;
  private readonly turns: RingTurns | null;
  private looking = false;
  private again = false;

  constructor(private readonly deps: WorkHandoutDeps) {
    this.bells = new WorkBells(deps.now);
    this.turns = deps.isTurn ? new RingTurns(deps.isTurn, deps.now) : null;
  }

  /** A teammate's status report: idle or working, and any bell it had is answered. */
  reported(name: string, status: 'idle' | 'working'): void {
    this.bells.reported(name, status);
  }

  /** A teammate's process ended. */
  gone(name: string): void {
    this.bells.gone(name);
  }

  /** One look at a time: a look asked for while one runs is done once after it (it covers every ask meanwhile). */
  async look(): Promise<void> {
    if (this.looking) {
      this.again = true;
      return;
    }
    this.looking = true;
    try {
      // Bounded: each round runs only if asked again during the previous one.
      do {
        this.again = false;
        await this.lookOnce();
      } while (this.again);
    } finally {
      this.looking = false;
    }
  }

  private async lookOnce(): Promise<void> {
    const { deps } = this;
    const startedAt = Date.now();
    try {
      const members = deps.roster.read().members;
      const ready = await deps.board.readyTasks(members.length + 1);
      const starting = members.filter((m) => m.status === 'starting' && deps.hasProcess(m.name)).length;
      const input = {
        ...(await deps.work.wakeInput(members, deps.hasProcess, ready.length, this.bells.available() + this.bells.inFlight() + starting)),
        // All of them, or the rule that skips declined ones cannot be applied (more may wait unread).
        ...(ready.length <= members.length ? { readyIds: ready.map((task) => task.id) } : {}),
      };
      for (const name of chooseWakeUps(input)) {
        deps.logger.info({ teammate: name }, 'waking teammate: work appeared');
        deps.launch(name);
      }
      const roles = new Map(members.map((m) => [m.name, m.role]));
      const turn = this.turns?.split(ready) ?? { now: ready, dueInMs: null };
      if (turn.dueInMs !== null) deps.lookIn?.(turn.dueInMs);
      for (const { name, task } of this.bells.choose(turn.now, (name) => roles.get(name))) deps.ring(name, task);
      deps.markLooked?.(startedAt);
      await deps.work.releaseStranded(members, deps.hasProcess);
    } catch (error) {
      deps.logger.error({ err: error }, 'could not check for work to wake teammates');
    }
    await deps.afterLook?.().catch((error: unknown) => deps.logger.warn({ err: error }, 'the step after a look failed'));
  }
}
