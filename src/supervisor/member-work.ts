import type { MailStore } from '../contracts/mail-store.js';
import type { TaskBoard } from '../contracts/task-board.js';
import type { Logger } from '../log/logger.js';
import type { Member } from '../contracts/roster.js';
import type { WakeInput } from './wake-policy.js';

const OUT_OF_WORK: ReadonlySet<string> = new Set(['shutdown', 'errored', 'budget']);

/** A member that takes no work until a person acts (shut down, errored, out of budget): its tasks go back to the board. */
export function takesNoWork(status: string): boolean {
  return OUT_OF_WORK.has(status);
}

/** What the supervisor needs to know of the teammates' work: read from the board and the inboxes. */
export class MemberWork {
  /** Members whose tasks could not all be released (a full disk, a damaged task): tried again at every look. */
  private readonly unreleased = new Set<string>();

  constructor(
    private readonly deps: {
      readonly board: TaskBoard;
      readonly mailbox: MailStore;
      readonly logger: Logger;
    },
  ) {}

  /**
   * The facts the wake policy decides on; `hasProcess` says whether a member runs (or is about to),
   * `awakeAvailable` how many running teammates will take ready tasks themselves.
   */
  async wakeInput(members: readonly Member[], hasProcess: (name: string) => boolean, readyTasks: number, awakeAvailable: number): Promise<WakeInput> {
    const asleep = members.filter((m) => m.status === 'asleep' && !hasProcess(m.name));
    if (asleep.length === 0) return { asleep, withUnread: new Set(), withOpenTask: new Set(), readyTasks: 0, awakeAvailable: 0 };
    const withUnread = new Set<string>();
    const withOpenTask = new Set<string>();
    for (const member of asleep) {
      if (await this.hasUnread(member.name)) withUnread.add(member.name);
      if ((await this.deps.board.ownedBy(member.name)).length > 0) withOpenTask.add(member.name);
    }
    return {
      asleep,
      withUnread,
      withOpenTask,
      readyTasks,
      awakeAvailable,
    };
  }

  /** Messages past the member's cursor: its inbox is longer than what it has handled. */
  async hasUnread(name: string): Promise<boolean> {
    try {
      return await this.deps.mailbox.hasUnread(name);
    } catch (error) {
      this.deps.logger.warn({ err: error, teammate: name }, 'could not tell whether a sleeping teammate has mail');
      return false;
    }
  }

  /** The tasks each named member holds, from the owner index (call only while they are not running). */
  async openTasksOf(names: readonly string[]): Promise<Map<string, number[]>> {
    const byOwner = new Map<string, number[]>();
    for (const name of names) {
      const ids = (await this.deps.board.ownedBy(name)).map((task) => task.id);
      if (ids.length > 0) byOwner.set(name, ids);
    }
    return byOwner;
  }

  /**
   * Tries again the releases that failed when members stopped taking work, so their tasks do not
   * wait for the next daemon start. Nothing to do (and no I/O) unless one failed; a member
   * started again meanwhile keeps what it holds.
   */
  async releaseStranded(members: readonly Member[], hasProcess: (name: string) => boolean): Promise<void> {
    for (const name of [...this.unreleased]) {
      const member = members.find((m) => m.name === name);
      if (!member || !takesNoWork(member.status) || hasProcess(name)) {
        this.unreleased.delete(name);
        continue;
      }
      await this.releaseTasksOf(name, `${name} is ${member.status}`, () => !hasProcess(name));
    }
  }

  /**
   * Puts a teammate's in-progress tasks back on the board, fenced by the claim number seen; each
   * only while `stillOut` holds. One that fails is tried again at the next look (releaseStranded).
   */
  async releaseTasksOf(name: string, why: string, stillOut: () => boolean = () => true): Promise<number[]> {
    const released: number[] = [];
    let failed = false;
    for (const task of await this.deps.board.ownedBy(name)) {
      if (!stillOut()) break;
      try {
        await this.deps.board.release(task.id, { owner: name, claim: task.claim });
        released.push(task.id);
        this.deps.logger.info({ taskId: task.id, teammate: name, why }, 'task released back to the board');
      } catch (error) {
        failed = true;
        this.deps.logger.warn({ err: error, taskId: task.id }, 'could not release task');
      }
    }
    if (failed) this.unreleased.add(name);
    else this.unreleased.delete(name);
    return released;
  }
}
