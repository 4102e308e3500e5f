import type { TaskBoard } from '../contracts/task-board.js';
import { TeamdError } from '../errors.js';
import type { PlanRequest } from './plan-requests.js';

/**
 * Why a plan request no longer asks anything, or null while it does. A plan is for one claim of
 * one task: once that claim is over (the task released and claimed again, by a re-spawned
 * teammate or another; finished; gone), an approval would open the tools for work nobody does
 * any more, so the request is closed. Derived from the board alone, like the rest of a request's
 * life (the mailboxes hold the request and its answer). A request sent before plans named their
 * claim is judged by owner and status alone.
 */
export async function requestClosure(board: Pick<TaskBoard, 'get'>, request: PlanRequest): Promise<string | null> {
  if (request.kind !== 'plan' || request.taskId === null || request.answer) return null;
  let task;
  try {
    task = await board.get(request.taskId);
  } catch (error) {
    if (error instanceof TeamdError && error.code === 'TASK_NOT_FOUND') return `task ${request.taskId} is gone`;
    throw error;
  }
  const claim = request.claim === null ? '' : `claim ${request.claim} of `;
  const was = `was for ${claim}task ${task.id}`;
  if (task.status !== 'in_progress') return `${was}, which is ${task.status} now`;
  if (task.owner !== request.from) return `${was}, which ${task.owner ?? 'nobody'} holds now (claim ${task.claim})`;
  if (request.claim !== null && task.claim !== request.claim) return `${was}, which ${task.owner} now holds as claim ${task.claim}`;
  return null;
}

/** The requests still asking something: those `requestClosure` finds open. */
export async function openRequests(board: Pick<TaskBoard, 'get'>, requests: readonly PlanRequest[]): Promise<PlanRequest[]> {
  const open: PlanRequest[] = [];
  for (const request of requests) if ((await requestClosure(board, request)) === null) open.push(request);
  return open;
}
