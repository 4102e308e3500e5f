import { TeamdError } from '../errors.js';
import type { Readiness, Actor } from '../contracts/board-types.js';
import type { Task, TaskStatus } from '../contracts/task.js';

function refuseTransition(task: Task, action: string, allowed: readonly TaskStatus[]): never {
  throw new TeamdError('INVALID_TRANSITION', `cannot ${action} task ${task.id}: it is ${task.status}; that needs a task that is ${allowed.join(' or ')}`, {
    details: { id: task.id, status: task.status },
  });
}

function requireStatus(task: Task, action: string, allowed: readonly TaskStatus[]): void {
  if (!allowed.includes(task.status)) refuseTransition(task, action, allowed);
}

function checkActor(task: Task, actor: Actor, action: string): void {
  if (actor.owner !== undefined && task.owner !== actor.owner) {
    throw new TeamdError(
      'NOT_OWNER',
      `cannot ${action} task ${task.id} as ${actor.owner}: it is ${task.owner === null ? 'not owned by anyone' : `owned by ${task.owner}`}`,
      { details: { id: task.id, owner: task.owner, actor: actor.owner } },
    );
  }
  if (actor.claim !== undefined && task.claim !== actor.claim) {
    throw new TeamdError(
      'STALE_CLAIM',
      actor.claim > task.claim
        ? `cannot ${action} task ${task.id} with claim ${actor.claim}: no such claim was ever made (the task's claim is ${task.claim}); give the number its claim printed`
        : `cannot ${action} task ${task.id} with claim ${actor.claim}: the task was claimed again since (claim ${task.claim}), so this holder's claim is void`,
      { details: { id: task.id, claim: task.claim, presented: actor.claim } },
    );
  }
}

export function claimTask(task: Task, owner: string, readiness: Readiness, now: string): Task {
  if (task.status !== 'pending' || task.owner !== null) {
    throw new TeamdError('NOT_READY', `cannot claim task ${task.id}: it is ${task.status}${task.owner ? ` and owned by ${task.owner}` : ''}`, {
      details: { id: task.id, status: task.status, owner: task.owner },
    });
  }
  if (!readiness.ready) {
    const why = readiness.stuck
      ? `blocker(s) ${readiness.stuckOn.join(', ')} failed or were cancelled`
      : `it waits on task(s) ${readiness.waitingOn.join(', ')}`;
    throw new TeamdError('NOT_READY', `cannot claim task ${task.id}: ${why}`, {
      details: { id: task.id, waitingOn: readiness.waitingOn, stuckOn: readiness.stuckOn },
    });
  }
  return { ...task, status: 'in_progress', owner, claim: task.claim + 1, claimedAt: now, updatedAt: now };
}

/** Without an owner (the lead acting), a pending task may be completed or failed directly. */
function finish(task: Task, actor: Actor, action: string, status: 'completed' | 'failed', result: string | null, now: string): Task {
  requireStatus(task, action, actor.owner === undefined ? ['in_progress', 'pending'] : ['in_progress']);
  checkActor(task, actor, action);
  return { ...task, status, result, completedAt: now, updatedAt: now };
}

export function completeTask(task: Task, actor: Actor, result: string | null, now: string): Task {
  return finish(task, actor, 'complete', 'completed', result, now);
}

export function failTask(task: Task, actor: Actor, reason: string, now: string): Task {
  return finish(task, actor, 'fail', 'failed', reason, now);
}

export function cancelTask(task: Task, now: string): Task {
  requireStatus(task, 'cancel', ['pending', 'in_progress']);
  return { ...task, status: 'cancelled', completedAt: now, updatedAt: now };
}

/** Back to the board: an abandoned claim, or a failed/cancelled task given another try. */
export function releaseTask(task: Task, actor: Actor, now: string): Task {
  requireStatus(task, 'release', ['in_progress', 'failed', 'cancelled']);
  checkActor(task, actor, 'release');
  return { ...task, status: 'pending', owner: null, claimedAt: null, completedAt: null, result: null, updatedAt: now };
}

export function updateBlockers(task: Task, blockedBy: readonly number[], now: string): Task {
  requireStatus(task, 'change the blockers of', ['pending']);
  return { ...task, blockedBy: [...blockedBy], updatedAt: now };
}
