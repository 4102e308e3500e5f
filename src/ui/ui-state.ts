import type { TaskView } from '../contracts/board-types.js';
import type { Message } from '../contracts/message.js';
import type { StatePaths } from '../paths.js';
import type { PlanRequest } from '../inbox/plan-requests.js';
import { readPublishedTodos } from '../teammate/published-todos.js';
import { offeredRule } from '../cli/answer-with-rule.js';
import { memberView, type MemberView } from '../cli/member-view.js';
import type { Snapshot } from '../cli/watch/snapshot.js';

/** A task as the board shows it: no description or result (a task's own page fetches those), so 10,000 cards stay small. */
export interface TaskCard {
  readonly id: number;
  readonly subject: string;
  readonly status: TaskView['status'];
  readonly owner: string | null;
  readonly role: string | null;
  readonly blockedBy: readonly number[];
  readonly waitingOn: readonly number[];
  readonly stuck: boolean;
  readonly ready: boolean;
  readonly worktree: string | null;
  readonly updatedAt: string;
}

export interface RequestCard extends PlanRequest {
  /** The rule "always" would add, or null when it has none (a plan, or a call no prefix rule covers). */
  readonly rule: string | null;
}

/** Everything the page shows, as the feed sends it. */
export interface UiState {
  readonly daemon: { readonly pid: number } | null;
  readonly rosterError: string | null;
  readonly problems: number;
  readonly members: readonly (MemberView & { readonly todos: readonly { content: string; status: string }[] })[];
  readonly tasks: readonly TaskCard[];
  readonly requests: readonly RequestCard[];
  readonly messages: readonly Message[];
}

/** What changed between two states: the page applies it to what it has. */
export interface UiDelta {
  readonly tasks?: readonly TaskCard[];
  readonly removed?: readonly number[];
  readonly members?: UiState['members'];
  readonly requests?: UiState['requests'];
  readonly messages?: readonly Message[];
  readonly daemon?: UiState['daemon'];
  readonly rosterError?: string | null;
  readonly problems?: number;
}

export function cardOf(task: TaskView): TaskCard {
  return {
    id: task.id,
    subject: task.subject,
    status: task.status,
    owner: task.owner ?? null,
    role: task.role ?? null,
    blockedBy: task.blockedBy,
    waitingOn: task.waitingOn,
    stuck: task.stuck,
    ready: task.ready,
    worktree: task.worktree?.state ?? null,
    updatedAt: task.updatedAt,
  };
}

/** The state of a whole read (teamd watch's snapshot): GET /api/state, and the page's first load. */
export function uiStateOf(snapshot: Snapshot, paths: StatePaths, others: readonly MemberView[] = []): UiState {
  return stateFrom(snapshot, snapshot.tasks.map(cardOf), snapshot.problems, paths, others);
}

/** The state from a snapshot's roster, requests and messages, and the board's cards as read apart (ui-board-reader.ts). */
export function stateFrom(
  snapshot: Pick<Snapshot, 'daemon' | 'rosterError' | 'members' | 'teamModel' | 'requests' | 'messages'>,
  tasks: readonly TaskCard[],
  problems: number,
  paths: StatePaths,
  /** Other hosts' teammates, from a shared store (team-members.ts): shown after this host's own. */
  others: readonly MemberView[] = [],
): UiState {
  const local = snapshot.members.map((member) => ({
    ...memberView(member, snapshot.teamModel, snapshot.daemon !== null),
    todos: member.task ? readPublishedTodos(paths, member.name) : [],
  }));
  const remote = others.filter((other) => !local.some((member) => member.name === other.name)).map((other) => ({ ...other, todos: [] }));
  return {
    daemon: snapshot.daemon ? { pid: snapshot.daemon.pid } : null,
    rosterError: snapshot.rosterError,
    problems,
    members: [...local, ...remote],
    tasks,
    requests: snapshot.requests.map((request) => ({ ...request, rule: offeredRule(request) })),
    messages: snapshot.messages,
  };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * What may change of a card: a write bumps updatedAt (subject, owner, status, worktree); its
 * readiness changes with its blockers' writes, not its own. Cheaper than comparing 10,000 cards whole.
 */
function cardKey(card: TaskCard): string {
  return `${card.updatedAt}|${card.status}|${card.ready ? 1 : 0}|${card.stuck ? 1 : 0}|${card.waitingOn.join(',')}|${card.worktree ?? ''}`;
}

/** The change from `before` to `after`, or null when nothing the page shows changed. */
export function deltaOf(before: UiState, after: UiState): UiDelta | null {
  const delta: { -readonly [K in keyof UiDelta]: UiDelta[K] } = {};
  const old = new Map(before.tasks.map((task) => [task.id, cardKey(task)]));
  const changed = after.tasks.filter((task) => old.get(task.id) !== cardKey(task));
  if (changed.length) delta.tasks = changed;
  const now = new Set(after.tasks.map((task) => task.id));
  const removed = before.tasks.filter((task) => !now.has(task.id)).map((task) => task.id);
  if (removed.length) delta.removed = removed;
  if (!same(before.members, after.members)) delta.members = after.members;
  if (!same(before.requests, after.requests)) delta.requests = after.requests;
  const seen = new Set(before.messages.map((message) => message.id));
  const fresh = after.messages.filter((message) => !seen.has(message.id));
  if (fresh.length) delta.messages = fresh;
  if (!same(before.daemon, after.daemon)) delta.daemon = after.daemon;
  if (before.rosterError !== after.rosterError) delta.rosterError = after.rosterError;
  if (before.problems !== after.problems) delta.problems = after.problems;
  return Object.keys(delta).length ? delta : null;
}
