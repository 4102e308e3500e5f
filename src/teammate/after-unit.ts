import type { TurnEnd } from '../agent/loop.js';
import { describeModelError, failureClass, ModelError } from '../model/model-errors.js';

/** How a unit of work ended: its last turn_end, or the error that ended it. */
export type UnitEnd =
  { readonly kind: 'turn_end'; readonly reason: TurnEnd; readonly text?: string | undefined } | { readonly kind: 'error'; readonly error: unknown };

/** What is true of the teammate's task when a unit ends. */
export interface UnitFacts {
  /** It still owns an open task (in progress, its name on it). */
  readonly ownsTask: boolean;
  /** A plan for this claim of the task is with the lead. */
  readonly awaitingPlan: boolean;
  /** Reminders already given for this task in this stretch of work. */
  readonly reminders: number;
}

/** Reminders a model gets when it ends its turn with its task unfinished, before the task goes back to the board. */
export const MAX_REMINDERS = 2;

/**
 * Model calls failing in a row (outages past the SDK's retries) before the person is told, once
 * for the whole episode: a short blip is only logged and shown by status; one that goes on gets one
 * notice, however long it lasts, and none again until a call has succeeded. The waits grow
 * meanwhile (model-backoff.ts).
 */
export const OUTAGE_NOTICE_AFTER = 3;

/** Whether this outage (the `failures`-th in a row) is the one the person hears of. */
export function tellsOfOutage(failures: number): boolean {
  return failures === OUTAGE_NOTICE_AFTER;
}

export type AfterUnit =
  | { readonly action: 'nothing' }
  | { readonly action: 'remind' }
  | { readonly action: 'give-back'; readonly why: string }
  | { readonly action: 'refused'; readonly text: string }
  | { readonly action: 'budget-spent' }
  /** A model outage outlasted the retries: the task goes back, the teammate waits (at least `retryAfterMs`, when the API said). */
  | { readonly action: 'outage'; readonly reason: string; readonly retryAfterMs?: number }
  /** The key or the model is refused: the teammate stops taking work. */
  | { readonly action: 'unusable'; readonly reason: string }
  /** The task fails; `freshConversation` when the API refused the conversation itself. */
  | {
      readonly action: 'fail';
      readonly error: unknown;
      readonly freshConversation: boolean;
      /** The place in the request's tools of a tool the API refused (`tools.N.custom...`): a server's tool is then no longer offered. */
      readonly refusedTool?: number;
    };

/**
 * What a teammate does when a unit of work ends (docs/teammate.md, "Stop reasons and model
 * errors"). Pure: the runtime carries the action out.
 */
export function decideAfterUnit(end: UnitEnd, facts: UnitFacts): AfterUnit {
  if (end.kind === 'error') {
    const reason = describeModelError(end.error);
    switch (failureClass(end.error)) {
      case 'aborted':
        return { action: 'nothing' };
      case 'transient': {
        const retryAfterMs = end.error instanceof ModelError ? end.error.retryAfterMs : undefined;
        return retryAfterMs === undefined ? { action: 'outage', reason } : { action: 'outage', reason, retryAfterMs };
      }
      case 'fatal':
        return { action: 'unusable', reason };
      case 'prompt_too_long':
      case 'task': {
        const refusedConversation =
          end.error instanceof ModelError &&
          (end.error.kind === 'bad_request' || end.error.kind === 'prompt_too_long' || end.error.kind === 'request_too_large');
        const tool = end.error instanceof ModelError && end.error.kind === 'bad_request' ? /\btools\.(\d+)\.custom\b/.exec(end.error.message) : null;
        return { action: 'fail', error: end.error, freshConversation: refusedConversation, ...(tool ? { refusedTool: Number(tool[1]) } : {}) };
      }
    }
  }
  switch (end.reason) {
    case 'refusal':
      return { action: 'refused', text: end.text ?? '' };
    case 'budget':
      return { action: 'budget-spent' };
    case 'stopped':
      return { action: 'nothing' };
    case 'step_limit':
      return facts.ownsTask ? { action: 'give-back', why: 'it made too many model calls in a row on it without finishing' } : { action: 'nothing' };
    case 'end_turn':
    case 'idle':
      // Waiting for the lead's answer to its plan is not leaving the task: the answer wakes it.
      if (!facts.ownsTask || facts.awaitingPlan) return { action: 'nothing' };
      if (facts.reminders < MAX_REMINDERS) return { action: 'remind' };
      return { action: 'give-back', why: `the model ended its turn ${facts.reminders + 1} times without completing or failing it` };
  }
}
