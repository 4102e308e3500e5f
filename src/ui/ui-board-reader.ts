import type { TaskBoard } from '../contracts/task-board.js';
import { isTeamdError } from '../errors.js';
import { cardOf, type TaskCard } from './ui-state.js';

/** How stale a change to a finished task (a merge from the CLI) may be on the page: a whole read of the board at most this often, and only after a change. */
export const FULL_READ_EVERY_MS = 30_000;

const LIVE = new Set(['pending', 'in_progress']);

export type ReadKind = 'fresh' | 'change' | 'rescan';

/**
 * The board as the page shows it, kept without reading every task at every change: on 10,000
 * tasks a whole listing takes ~380 ms, the live ones (pending, in progress) ~70 ms (npm run bench
 * -- ui). A change reads the live tasks, and each task that was live and is not any more (it
 * finished, or was removed) on its own. Finished tasks change rarely (a worktree merged): those
 * the page itself changes are read again at once (`touch`), any other within FULL_READ_EVERY_MS.
 */
export class UiBoardReader {
  private readonly cards = new Map<number, TaskCard>();
  private readonly touched = new Set<number>();
  private fullAt: number | null = null;
  private fullProblems = 0;

  constructor(
    private readonly board: TaskBoard,
    private readonly now: () => number = Date.now,
  ) {}

  /** Read this task again at the next read (the page merged it). */
  touch(id: number): void {
    this.touched.add(id);
  }

  /**
   * `fresh`: a whole read (nobody watched meanwhile, so what was kept may be behind); `change`:
   * something rang; `rescan`: the bell's safety re-check, which never costs a whole read.
   */
  async read(kind: ReadKind): Promise<{ readonly tasks: TaskCard[]; readonly problems: number }> {
    if (kind === 'fresh' || this.fullAt === null || (kind === 'change' && this.now() - this.fullAt >= FULL_READ_EVERY_MS)) return this.readAll();
    // Taken before the reads: a task touched while they run is read at the next read, not forgotten.
    const touched = [...this.touched];
    this.touched.clear();
    const [pending, working] = await Promise.all([this.board.list({ status: 'pending' }), this.board.list({ status: 'in_progress' })]);
    const live = new Map([...pending.tasks, ...working.tasks].map((task) => [task.id, cardOf(task)]));
    const gone = [...this.cards.values()].filter((card) => LIVE.has(card.status) && !live.has(card.id)).map((card) => card.id);
    for (const id of [...gone, ...touched]) {
      if (live.has(id)) continue;
      try {
        this.cards.set(id, cardOf(await this.board.get(id)));
      } catch (error) {
        if (!isTeamdError(error, 'TASK_NOT_FOUND')) throw error;
        this.cards.delete(id);
      }
    }
    for (const [id, card] of live) this.cards.set(id, card);
    const liveProblems = new Set([...pending.problems, ...working.problems].map((problem) => problem.file)).size;
    return { tasks: [...this.cards.values()], problems: Math.max(this.fullProblems, liveProblems) };
  }

  private async readAll(): Promise<{ readonly tasks: TaskCard[]; readonly problems: number }> {
    const startedAt = this.now();
    this.touched.clear();
    const listing = await this.board.list();
    this.cards.clear();
    for (const task of listing.tasks) this.cards.set(task.id, cardOf(task));
    this.fullAt = startedAt;
    this.fullProblems = listing.problems.length;
    return { tasks: [...this.cards.values()], problems: this.fullProblems };
  }
}
