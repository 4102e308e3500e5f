import type { TaskView } from '../../contracts/board-types.js';
import type { TeamStore } from '../../contracts/team-store.js';
import { readLiveDaemon, type PidInfo } from '../../proc/pid-file.js';
import type { Message } from '../../contracts/message.js';
import type { StatePaths } from '../../paths.js';
import { readConfig } from '../../roster/roster.js';
import { type Member } from '../../contracts/roster.js';
import type { TodoItem } from '../../contracts/todos.js';
import { readPublishedTodos } from '../../teammate/published-todos.js';
import type { PlanRequest } from '../../inbox/plan-requests.js';
import { pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { memberView } from '../member-view.js';

export interface Snapshot {
  readonly daemon: PidInfo | null;
  readonly members: Member[];
  /** The team's model (a member without one of its own uses it). */
  readonly teamModel: string;
  /** Why the roster cannot be read (a corrupt config.json); the rest is still shown. */
  readonly rosterError: string | null;
  readonly tasks: TaskView[];
  readonly problems: number;
  readonly messages: Message[];
  /** Each working teammate's plan (todo_write), shown beside its task. */
  readonly todos: ReadonlyMap<string, readonly TodoItem[]>;
  /** Plan and permission requests waiting for the person's answer, oldest first. */
  readonly requests: readonly PlanRequest[];
}

/** Everything the watch view shows, read from the files (works with the daemon down). */
export async function takeSnapshot(paths: StatePaths, store: Pick<TeamStore, 'board' | 'mail'>, messageCount: number): Promise<Snapshot> {
  const team = await takeTeamSnapshot(paths, store, messageCount);
  const listing = await store.board.list();
  return { ...team, tasks: listing.tasks, problems: listing.problems.length };
}

/** The snapshot but the board: a view that keeps the board itself (the dashboard, src/ui/ui-board-reader.ts) reads this at each change. */
export async function takeTeamSnapshot(
  paths: StatePaths,
  store: Pick<TeamStore, 'board' | 'mail'>,
  messageCount: number,
): Promise<Omit<Snapshot, 'tasks' | 'problems'>> {
  const requests = await pendingPlanRequests(store.mail, store.board, paths, scanFileOf(store, paths));
  let members: Member[] = [];
  let teamModel = 'offline';
  let rosterError: string | null = null;
  try {
    const config = readConfig(paths.config);
    members = config.members;
    teamModel = config.settings.model;
  } catch (error) {
    rosterError = error instanceof Error ? error.message : String(error);
  }
  return {
    daemon: readLiveDaemon(paths),
    members,
    teamModel,
    rosterError,
    messages: await store.mail.latest(messageCount),
    todos: new Map(members.filter((m) => m.task).map((m) => [m.name, readPublishedTodos(paths, m.name)])),
    requests,
  };
}

/**
 * `teamd watch --json`: the frame's data, its members in the shape `teamd status --json` gives
 * them (member-view.ts, with each one's plan), so a script reads one shape for both.
 */
export function snapshotJson(snapshot: Snapshot, paths: StatePaths): unknown {
  const { todos: _todos, teamModel: _model, members, ...rest } = snapshot;
  return {
    ...rest,
    members: members.map((member) => ({ ...memberView(member, snapshot.teamModel, snapshot.daemon !== null), todos: readPublishedTodos(paths, member.name) })),
  };
}
