import type { TaskView } from '../contracts/board-types.js';
import type { Notice } from '../contracts/notifications.js';
import { LEAD, USER, type Member } from '../contracts/roster.js';
import type { TeamStore } from '../contracts/team-store.js';
import { isTeamdError } from '../errors.js';
import { pendingPlanRequests, scanFileOf } from '../inbox/request-scan.js';
import type { StatePaths } from '../paths.js';
import { isoTime } from '../platform/iso-time.js';
import { isLeadAgent } from '../teammate/worker-identity.js';
import { failedNotice, finalReportNotice, requestNotice, stuckBoard, stuckNotice } from './notices.js';

export interface FinderView {
  readonly members: readonly Member[];
  readonly leadAnswers: { readonly plans: boolean; readonly permissions: boolean };
  readonly stuckAfterMs: number;
}

export interface FinderDeps {
  readonly store: Pick<TeamStore, 'board' | 'mail'>;
  readonly paths: StatePaths;
  /** The roster and settings as they are now. */
  readonly view: () => FinderView;
  readonly now?: () => number;
}

/** What one look found, and when to look again though nothing rings (a board that may turn stuck by waiting). */
export interface Look {
  readonly notices: Notice[];
  readonly lookAgainAt: number | null;
}

const LIVE = new Set(['pending', 'in_progress']);

/**
 * Finds what the person must hear of, one look at a time (the notifier looks when the store
 * rings): requests that wait for the person (not those the lead agent answers), tasks that
 * failed, a board that cannot move, the lead's final reports. It starts from the team as it is:
 * what failed or was reported before the daemon started is not news; a request still waiting is.
 * A look reads the live tasks and each task that stopped being live, not the whole board; a
 * failure it did not see live (a task added and failed between two looks) shows in the board's
 * failed count, and only then is the board's list of failed tasks read.
 */
export class NoticeFinder {
  private live = new Map<number, TaskView>();
  private userFrom = 0;
  private failedCount = 0;
  private readonly failedSeen = new Set<string>();
  private liveShape = '';
  private changedAt = 0;
  private readonly now: () => number;

  constructor(private readonly deps: FinderDeps) {
    this.now = deps.now ?? Date.now;
  }

  async start(): Promise<void> {
    const { board, mail } = this.deps.store;
    this.userFrom = await mail.end(USER);
    // What failed before is not news: one whole read at the start (by task and claim, not by clock: hosts' clocks differ).
    const failed = await board.list({ status: 'failed' });
    for (const task of failed.tasks) this.failedSeen.add(`${task.id}:${task.claim}`);
    this.failedCount = (await board.counts(0)).counts.failed;
    this.live = await this.readLive();
    this.liveShape = shapeOf(this.live);
    this.changedAt = this.now();
  }

  async look(): Promise<Look> {
    const at = isoTime(new Date(this.now()));
    const view = this.deps.view();
    const notices: Notice[] = [...(await this.requests(view, at)), ...(await this.reports(at)), ...(await this.failures(at))];
    const tasks = [...this.live.values()];
    const quietFor = this.now() - this.changedAt;
    const stuck = stuckBoard(tasks, quietFor, view.stuckAfterMs);
    if (stuck) notices.push(stuckNotice(stuck, at));
    const waitsForStuck = !stuck && !tasks.some((task) => task.status === 'in_progress') && tasks.some((task) => task.status === 'pending' && task.ready);
    return { notices, lookAgainAt: waitsForStuck ? this.changedAt + view.stuckAfterMs : null };
  }

  private async requests(view: FinderView, at: string): Promise<Notice[]> {
    const { store, paths } = this.deps;
    const lead = view.members.some((member) => isLeadAgent(member) && member.status !== 'shutdown');
    const waiting = await pendingPlanRequests(store.mail, store.board, paths, scanFileOf(store, paths));
    // The lead agent answers what the settings let it; the rest waits for the person.
    const forPerson = waiting.filter((request) => !lead || !(request.kind === 'plan' ? view.leadAnswers.plans : view.leadAnswers.permissions));
    return forPerson.map((request) => requestNotice(request, at));
  }

  private async reports(at: string): Promise<Notice[]> {
    const page = await this.deps.store.mail.inbox(USER, this.userFrom);
    this.userFrom = page.next;
    return page.messages.filter((message) => message.from === LEAD && message.report === 'final').map((message) => finalReportNotice(message, at));
  }

  private async failures(at: string): Promise<Notice[]> {
    const { board } = this.deps.store;
    const before = this.live;
    this.live = await this.readLive();
    const shape = shapeOf(this.live);
    if (shape !== this.liveShape) {
      this.liveShape = shape;
      this.changedAt = this.now();
    }
    const failed: TaskView[] = [];
    for (const id of before.keys()) {
      if (this.live.has(id)) continue;
      try {
        const task = await board.get(id);
        if (task.status === 'failed') failed.push(task);
      } catch (error) {
        if (!isTeamdError(error, 'TASK_NOT_FOUND')) throw error;
      }
    }
    const fresh = failed.filter((task) => this.firstSeen(task));
    const count = (await board.counts(0)).counts.failed;
    if (count !== this.failedCount + fresh.length) {
      // A failure no look saw live (or a failed task tried again): read the failed ones.
      const listed = await board.list({ status: 'failed' });
      fresh.push(...listed.tasks.filter((task) => this.firstSeen(task)));
    }
    this.failedCount = count;
    return fresh.map((task) => failedNotice(task, at));
  }

  private firstSeen(task: TaskView): boolean {
    const key = `${task.id}:${task.claim}`;
    if (this.failedSeen.has(key)) return false;
    this.failedSeen.add(key);
    return true;
  }

  private async readLive(): Promise<Map<number, TaskView>> {
    const { board } = this.deps.store;
    const [pending, working] = await Promise.all([board.list({ status: 'pending' }), board.list({ status: 'in_progress' })]);
    return new Map([...pending.tasks, ...working.tasks].filter((task) => LIVE.has(task.status)).map((task) => [task.id, task]));
  }
}

/** What counts as the board moving: a live task's status, claim or last change. */
function shapeOf(live: ReadonlyMap<number, TaskView>): string {
  return [...live.values()].map((task) => `${task.id}:${task.status}:${task.claim}:${task.updatedAt}`).join(',');
}
