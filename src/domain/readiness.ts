import type { Task, TaskStatus } from '../contracts/task.js';
import type { Readiness } from '../contracts/board-types.js';

/** What readiness needs to know of another task; undefined when it is missing or unreadable. */
export type StatusLookup = (id: number) => { status: TaskStatus; blockedBy: readonly number[] } | undefined;

const NOT_PENDING: Readiness = { ready: false, stuck: false, waitingOn: [], stuckOn: [] };

export function assessReadiness(task: Pick<Task, 'status' | 'owner' | 'blockedBy'>, lookup: StatusLookup): Readiness {
  if (task.status !== 'pending') return NOT_PENDING;
  const waitingOn = task.blockedBy.filter((id) => lookup(id)?.status !== 'completed');
  const stuckOn = [...collectDeadBlockers(task.blockedBy, lookup, new Set())].sort((a, b) => a - b);
  return {
    ready: task.owner === null && waitingOn.length === 0,
    stuck: stuckOn.length > 0,
    waitingOn,
    stuckOn,
  };
}

function collectDeadBlockers(blockedBy: readonly number[], lookup: StatusLookup, seen: Set<number>): Set<number> {
  const dead = new Set<number>();
  for (const id of blockedBy) {
    if (seen.has(id)) continue;
    seen.add(id);
    const blocker = lookup(id);
    if (blocker === undefined) continue;
    if (blocker.status === 'failed' || blocker.status === 'cancelled') dead.add(id);
    else if (blocker.status === 'pending') for (const d of collectDeadBlockers(blocker.blockedBy, lookup, seen)) dead.add(d);
  }
  return dead;
}

/**
 * The path of ids closing a cycle if `id` were blocked by `blockedBy` (e.g. [3, 5, 3]), or null.
 * `edges` gives every other task's current blockers.
 */
export function findCycle(id: number, blockedBy: readonly number[], edges: (id: number) => readonly number[]): number[] | null {
  const visiting = new Set<number>();
  const done = new Set<number>();
  const walk = (node: number, path: number[]): number[] | null => {
    if (node === id) return [...path, node];
    if (done.has(node) || visiting.has(node)) return null;
    visiting.add(node);
    for (const next of edges(node)) {
      const found = walk(next, [...path, node]);
      if (found) return found;
    }
    visiting.delete(node);
    done.add(node);
    return null;
  };
  for (const blocker of blockedBy) {
    const found = walk(blocker, [id]);
    if (found) return found;
  }
  return null;
}
