import { createHash } from 'node:crypto';
import type { TaskView } from '../contracts/board-types.js';
import type { Message } from '../contracts/message.js';
import type { Notice } from '../contracts/notifications.js';
import type { Task } from '../contracts/task.js';
import { describeRequestInput, type PlanRequest } from '../inbox/plan-requests.js';

/** The most of a plan, a reason or a report a notice carries: a chat message, not a document (the dashboard shows the rest). */
export const NOTICE_TEXT_CHARS = 2_000;

function cut(text: string, chars = NOTICE_TEXT_CHARS): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

/** One line, whatever the model put in it: no line breaks, at most `chars`. */
function line(text: string, chars = 200): string {
  return cut(text.replace(/\s+/g, ' ').trim(), chars);
}

export function requestNotice(request: PlanRequest, at: string): Notice {
  const task = request.taskId === null ? '' : ` (task ${request.taskId})`;
  const title =
    request.kind === 'permission'
      ? `${request.from} asks to run ${request.tool ?? 'a tool'}: ${line(describeRequestInput(request.input), 120)}${task}`
      : `${request.from}'s plan${task} waits for your answer`;
  return {
    key: `request:${request.requestId}`,
    kind: 'request',
    at,
    title,
    text: cut(`${request.plan}\n\nteamd approve ${request.requestId.slice(0, 8)} · teamd reject ${request.requestId.slice(0, 8)} --reason …`),
    teammate: request.from,
    task: request.taskId,
    request: { id: request.requestId, kind: request.kind },
  };
}

export function failedNotice(task: Task, at: string): Notice {
  return {
    key: `task_failed:${task.id}:${task.claim}`,
    kind: 'task_failed',
    at,
    title: `task ${task.id} failed${task.owner ? ` (${task.owner})` : ''}: ${line(task.subject, 120)}`,
    text: cut(task.result ?? 'no reason given'),
    teammate: task.owner,
    task: task.id,
  };
}

export function finalReportNotice(message: Message, at: string): Notice {
  return {
    key: `final_report:${message.id}`,
    kind: 'final_report',
    at,
    title: `${message.from} reports on the goal: ${line(message.content.split('\n')[0] ?? '', 120)}`,
    text: cut(message.content),
    teammate: message.from,
    task: null,
  };
}

/** Why the board cannot move, or null: open work that nothing will take up. */
export interface Stuck {
  /** Names this state of the board: the same stuck board is told once. */
  readonly fingerprint: string;
  readonly why: string;
}

/**
 * A board is stuck when it has open work and none of it can move: nothing in progress and no
 * pending task ready (each waits on a failed or cancelled task, or on one another) — at once;
 * or ready tasks and nothing in progress for `stuckAfterMs` since the board last changed (no
 * teammate takes them: none of their role, every teammate stopped or out of budget). Ready
 * tasks waiting while teammates work on others are a busy team, not a stuck one.
 */
export function stuckBoard(tasks: readonly TaskView[], quietForMs: number, stuckAfterMs: number): Stuck | null {
  const pending = tasks.filter((task) => task.status === 'pending');
  if (pending.length === 0) return null;
  const working = tasks.some((task) => task.status === 'in_progress');
  const ready = pending.filter((task) => task.ready);
  const fingerprint = pending
    .map((task) => `${task.id}.${task.claim}`)
    .sort()
    .join(',');
  if (!working && ready.length === 0) {
    const stuckOn = [...new Set(pending.flatMap((task) => task.stuckOn))].sort((a, b) => a - b);
    const why = stuckOn.length
      ? `${pending.length} pending task(s) wait on failed or cancelled task(s) ${stuckOn.map((id) => `#${id}`).join(', ')}`
      : `${pending.length} pending task(s) wait on one another and nothing is in progress`;
    return { fingerprint: `blocked:${fingerprint}`, why };
  }
  if (ready.length > 0 && !working && quietForMs >= stuckAfterMs)
    return {
      fingerprint: `untaken:${fingerprint}`,
      why: `${ready.length} ready task(s) (${ready
        .slice(0, 5)
        .map((task) => `#${task.id}`)
        .join(
          ', ',
        )}${ready.length > 5 ? ', …' : ''}) not taken for ${Math.round(quietForMs / 60_000)} min, and nothing in progress: no teammate takes them (none of their role, all stopped, or out of budget)`,
    };
  return null;
}

export function stuckNotice(stuck: Stuck, at: string): Notice {
  const key = `board_stuck:${createHash('sha256').update(stuck.fingerprint).digest('hex').slice(0, 24)}`;
  return { key, kind: 'board_stuck', at, title: 'the board is stuck', text: stuck.why, teammate: null, task: null };
}
