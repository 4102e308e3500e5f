import type { Task } from './task.js';
import { REQUEST_TYPES, type Message } from './message.js';

/**
 * What the runtime injects into a conversation starts with a tag like `[teamd:task id=3]`:
 * the model reads the prose, and the offline model (and a person reading the session) the tag.
 */
export type Directive =
  | { readonly kind: 'task'; readonly id: number }
  /** `claim`: claimed again under a new claim after it went back to the board (a plan must be approved again). */
  | { readonly kind: 'resume'; readonly id: number; readonly claim?: number }
  | {
      readonly kind: 'message';
      readonly from: string;
      readonly type: string;
      readonly request?: string;
      readonly task?: number;
      /** A message from the person (user): its id, which names a goal's steps (task keys). */
      readonly goal?: string;
      /** The lead asks for a plan for this task before it is changed (request_plan). */
      readonly planFor?: number;
    }
  | { readonly kind: 'plan'; readonly approve: boolean }
  | { readonly kind: 'identity' }
  | { readonly kind: 'continue' }
  /** The model ended its turn while it still owned the task: finish it. */
  | { readonly kind: 'remind'; readonly id: number }
  /** The lead agent ended its turn with the person's goal open and nothing under way for it: carry on, or report. */
  | { readonly kind: 'stalled'; readonly goal: string }
  /** The task went back to the board: the teammate no longer owns it. */
  | { readonly kind: 'released'; readonly id: number }
  | { readonly kind: 'summary' }
  /** A helper's (subagent's) job: its whole prompt. */
  | { readonly kind: 'subtask' }
  /** A background job ended (or was lost). */
  | { readonly kind: 'job'; readonly id: string; readonly state: string }
  /** The instruction of a summary request. */
  | { readonly kind: 'summarize' };

/** In the system prompt of a teammate that must have its plan approved. */
export const PLAN_REQUIRED_MARKER = '[teamd:plan-required]';

const TAG = /^\[teamd:(\w+)((?: [a-z]+=[^\s\]]+)*)\]/;

export function parseDirective(text: string): Directive | null {
  const match = TAG.exec(text);
  if (!match) return null;
  const attrs = Object.fromEntries(
    (match[2] ?? '')
      .trim()
      .split(' ')
      .filter(Boolean)
      .map((pair) => pair.split('=') as [string, string]),
  );
  switch (match[1]) {
    case 'task':
      return { kind: 'task', id: Number(attrs.id) };
    case 'resume':
      return { kind: 'resume', id: Number(attrs.task ?? attrs.id), ...(attrs.claim ? { claim: Number(attrs.claim) } : {}) };
    case 'message':
      return {
        kind: 'message',
        from: attrs.from ?? 'lead',
        type: attrs.type ?? 'message',
        ...(attrs.request ? { request: attrs.request } : {}),
        ...(attrs.task ? { task: Number(attrs.task) } : {}),
        ...(attrs.goal ? { goal: attrs.goal } : {}),
        ...(attrs.plan ? { planFor: Number(attrs.plan) } : {}),
      };
    case 'plan':
      return { kind: 'plan', approve: attrs.approve === 'true' };
    case 'identity':
      return { kind: 'identity' };
    case 'continue':
      return { kind: 'continue' };
    case 'remind':
      return { kind: 'remind', id: Number(attrs.task) };
    case 'released':
      return { kind: 'released', id: Number(attrs.task) };
    case 'stalled':
      return { kind: 'stalled', goal: attrs.goal ?? '?' };
    case 'summary':
      return { kind: 'summary' };
    case 'summarize':
      return { kind: 'summarize' };
    case 'subtask':
      return { kind: 'subtask' };
    case 'job':
      return { kind: 'job', id: attrs.id ?? '?', state: attrs.state ?? '?' };
    default:
      return null;
  }
}

/**
 * A claimed task. `afterEarlierWork`: the conversation already holds finished tasks and answered
 * messages, which stay where they are (rewriting them would cost the cached prompt) and are
 * declared done here instead.
 */
export function taskDirective(task: Pick<Task, 'id' | 'subject' | 'description' | 'claim'>, afterEarlierWork = false): string {
  const earlier = afterEarlierWork ? '\n\nEverything above this point is finished: earlier tasks, messages and reminders need nothing more from you.' : '';
  return `[teamd:task id=${task.id}]\nYou claimed task ${task.id} (claim ${task.claim}): ${task.subject}\n\n${task.description}\n\nDo it with your tools, then call complete_task with a short result, or fail_task with the reason.${earlier}`;
}

export function worktreeDirective(task: { id: number; worktree?: { branch: string } | undefined }, where: string): string {
  return `[teamd:worktree task=${task.id}]\nYou work on task ${task.id} in its own git worktree, ${where}, on the branch ${task.worktree?.branch ?? '?'}: your file tools and bash run there, and other teammates' work is not in it. Do not commit, merge or switch branches: teamd commits your changes when you complete the task, and the lead merges them.`;
}

export function resumeDirective(task: Pick<Task, 'id' | 'subject' | 'description'>): string {
  return `[teamd:resume task=${task.id}]\nYou were restarted. You still own task ${task.id}: ${task.subject}\n\n${task.description}\n\nCheck what is already done (files, outputs) before repeating work, then finish it with complete_task or fail_task.`;
}

/**
 * A task this teammate worked on before, claimed again after it went back to the board (it
 * crashed again and again, or the model API was out): resumed, not started over, under its new claim.
 */
export function reclaimDirective(task: Pick<Task, 'id' | 'subject' | 'description' | 'claim'>, planRequired: boolean): string {
  const plan = planRequired ? ' A plan approved for an earlier claim does not count for this one: submit your plan again with submit_plan.' : '';
  return `[teamd:resume task=${task.id} claim=${task.claim}]\nYou claimed task ${task.id} again (claim ${task.claim}): ${task.subject}\n\n${task.description}\n\nYou worked on it before it went back to the board, and someone else may have since. Check what is already done (files, outputs) before repeating work, then finish it with complete_task or fail_task.${plan}`;
}

export function messageDirective(message: Message): string {
  // A request names its id (review_plan answers it) and its task, for whoever answers it.
  const request = message.requestId && REQUEST_TYPES.includes(message.type) ? ` request=${message.requestId}` : '';
  const task = typeof message.taskId === 'number' ? ` task=${message.taskId}` : '';
  const goal = message.from === 'user' ? ` goal=${message.id}` : '';
  const planFor = planAskedIn(message);
  const plan = planFor === null ? '' : ` plan=${planFor}`;
  const asks =
    planFor === null
      ? ''
      : `\n\n(The lead asks for your plan for task ${planFor}: before you change anything for it, submit a plan with submit_plan; tools that change files or the board refuse until the lead approves it.)`;
  return `[teamd:message from=${message.from} type=${message.type}${request}${task}${goal}${plan}]\nMessage from ${message.from}${message.type === 'message' ? '' : ` (${message.type})`}:\n${message.content}${asks}`;
}

/** The task a message from the lead asks a plan for (request_plan: `planFor` in the message), or null. */
export function planAskedIn(message: Message): number | null {
  return message.from === 'lead' && typeof message.planFor === 'number' && Number.isInteger(message.planFor) && message.planFor > 0 ? message.planFor : null;
}

/** The prompt of a one-shot helper (teammate/subagent.ts). */
export function subtaskDirective(description: string, prompt: string): string {
  return `[teamd:subtask]\n${description}\n\n${prompt}`;
}

/** A background job's end, told before the next model call (teammate/job-intake.ts). */
export function jobDirective(job: {
  id: string;
  state: string;
  command: string;
  outcome: string;
  durationMs: number | null;
  tail: string;
  cut: boolean;
}): string {
  const took = job.durationMs === null ? '' : ` after ${(job.durationMs / 1000).toFixed(1)} s`;
  const command = job.command.length > 300 ? `${job.command.slice(0, 300)}…` : job.command;
  const output = job.tail ? `\nLast output${job.cut ? ' (the output was cut at its size limit)' : ''}:\n${job.tail}` : '\n(no output)';
  const lost = job.state === 'lost' ? '\nIt did not finish: run it again if you still need it.' : '';
  return `[teamd:job id=${job.id} state=${job.state}]\nBackground job ${job.id} ended: ${job.outcome}${took}.\nCommand: ${command}${lost}${output}`;
}

export function planDirective(approve: boolean, feedback: string): string {
  return approve
    ? `[teamd:plan approve=true]\nThe lead approved your plan.${feedback ? ` ${feedback}` : ''} Carry it out now.`
    : `[teamd:plan approve=false]\nThe lead rejected your plan: ${feedback || '(no feedback)'}. Revise it and submit_plan again, or fail_task if it cannot be done.`;
}

export function remindDirective(task: Pick<Task, 'id' | 'subject'>, attempt: number, limit: number): string {
  return `[teamd:remind task=${task.id}]\nYou ended your turn, but you still own task ${task.id}: ${task.subject}. Finish it now: call complete_task with a short result, or fail_task with the reason it cannot be done. (Reminder ${attempt} of ${limit}; after that the task goes back to the board.)`;
}

export function stalledDirective(goal: string, why: string, attempt: number, limit: number): string {
  return `[teamd:stalled goal=${goal}]\nYou ended your turn, but the person's goal (goal=${goal}) is not done and nothing is under way for it: ${why}. Carry on now (spawn_teammate, create_task), or, if it is done or cannot be done, call report with final: true and goal: "${goal}". (Reminder ${attempt} of ${limit}; after that teamd tells the person you stopped.)`;
}

export function releasedDirective(task: Pick<Task, 'id' | 'subject'>, why: string): string {
  return `[teamd:released task=${task.id}]\nTask ${task.id} (${task.subject}) is back on the board and no longer yours: ${why}. Do not work on it unless you claim it again.`;
}

export function continueDirective(why: 'text' | 'tool'): string {
  return why === 'text'
    ? '[teamd:continue]\nYou reached the output limit. Continue exactly where you stopped.'
    : '[teamd:continue]\nYou reached the output limit in the middle of a tool call, so it was not run. Make the call again, smaller (split large content over several calls).';
}

export function summarizeDirective(): string {
  return '[teamd:summarize]\nSummarize the conversation above for yourself, to replace it: decisions, files touched, task ids and their state, what is done and what is left of your current task, open questions. Be brief. Answer with text only; do not call tools.';
}

export function summaryDirective(summary: string): string {
  return `[teamd:summary]\nEarlier conversation, summarized:\n${summary}`;
}

/** After a summary or a rebuild: the task it still works on, in full. */
export function currentTaskDirective(task: Pick<Task, 'id' | 'subject' | 'description'>, plan: string | null = null): string {
  return `[teamd:resume task=${task.id}]\nYour conversation was shortened. You still own task ${task.id}: ${task.subject}\n\n${task.description}\n\n${plan ? `${plan}\n\n` : ''}Go on from where the summary says you are, then finish it with complete_task or fail_task.`;
}
