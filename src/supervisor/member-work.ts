import fs from 'node:fs';
import type { Board } from '../board/board.js';
import type { CursorStore } from '../inbox/cursor.js';
import type { Logger } from '../logger.js';
import type { StatePaths } from '../paths.js';
import type { Member } from '../roster/roster.js';
import type { WakeInput } from './wake-policy.js';

/** What the supervisor needs to know of the teammates' work: read from the board and the inboxes. */
export class MemberWork {
  constructor(
    private readonly deps: {
      readonly paths: StatePaths;
      readonly board: Board;
      readonly logger: Logger;
      readonly cursorOf: (name: string) => CursorStore;
    },
  ) {}

  /**
   * The facts the wake policy decides on; `hasProcess` says whether a member runs (or is about to),
   * `awakeAvailable` how many running teammates will take ready tasks themselves.
   */
  wakeInput(members: readonly Member[], hasProcess: (name: string) => boolean, readyTasks: number, awakeAvailable: number): WakeInput {
    const asleep = members.filter((m) => m.status === 'asleep' && !hasProcess(m.name));
    if (asleep.length === 0) return { asleep, withUnread: new Set(), withOpenTask: new Set(), readyTasks: 0, awakeAvailable: 0 };
    return {
      asleep,
      withUnread: new Set(asleep.filter((m) => this.hasUnread(m.name)).map((m) => m.name)),
      withOpenTask: new Set(asleep.filter((m) => this.deps.board.ownedBy(m.name).length > 0).map((m) => m.name)),
      readyTasks,
      awakeAvailable,
    };
  }

  /** Messages past the member's cursor: its inbox is longer than what it has handled. */
  hasUnread(name: string): boolean {
    try {
      return fs.statSync(this.deps.paths.inboxFile(name)).size > this.deps.cursorOf(name).read().offset;
    } catch {
      return false;
    }
  }

  /** The tasks each named member holds, from the owner index (call only while they are not running). */
  openTasksOf(names: readonly string[]): Map<string, number[]> {
    const byOwner = new Map<string, number[]>();
    for (const name of names) {
      const ids = this.deps.board.ownedBy(name).map((task) => task.id);
      if (ids.length > 0) byOwner.set(name, ids);
    }
    return byOwner;
  }

  /** Puts a teammate's in-progress tasks back on the board, fenced by the claim number seen. */
  async releaseTasksOf(name: string, why: string): Promise<number[]> {
    const released: number[] = [];
    for (const task of this.deps.board.ownedBy(name)) {
      try {
        await this.deps.board.release(task.id, { owner: name, claim: task.claim });
        released.push(task.id);
        this.deps.logger.info({ taskId: task.id, teammate: name, why }, 'task released back to the board');
      } catch (error) {
        this.deps.logger.warn({ err: error, taskId: task.id }, 'could not release task');
      }
    }
    return released;
  }
}
