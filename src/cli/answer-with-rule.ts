import path from 'node:path';
import { alwaysRule } from '../permissions/always-rule.js';
import { parseRule, ruleCovers } from '../permissions/rules.js';
import { TeamdError } from '../errors.js';
import type { PlanRequest } from '../inbox/plan-requests.js';
import { pendingPlanRequests, scanFileOf } from '../inbox/request-scan.js';
import { answerRequest } from '../inbox/answer-request.js';
import type { Message } from '../contracts/message.js';
import { settingsFiles } from '../teammate/policy-wiring.js';
import { addRuleToSettings } from '../settings/settings-edit.js';
import type { CommandContext } from './context.js';

export interface PersonAnswer {
  readonly approve: boolean;
  readonly feedback: string;
  /** Also allow such calls from now on: Claude Code's prefix rule goes into settings.json. */
  readonly always?: boolean;
  /** With `always`: the exact line, not its prefix. */
  readonly exact?: boolean;
}

export interface Answered {
  readonly request: PlanRequest;
  readonly response: Message;
  readonly rule: string | null;
  /** Other waiting requests the new rule allows whole, answered by it. */
  readonly alsoApproved: readonly PlanRequest[];
}

type AnswerContext = Pick<CommandContext, 'paths' | 'mailbox' | 'board' | 'store'>;

/**
 * The person's answer to a plan or permission request (teamd approve, reject, plans --watch):
 * signed by answerRequest, with an allow rule first when `always` (were the answer sent without
 * it, the next such call would be asked again), then every other waiting request that rule
 * allows, as Claude Code applies a rule to the prompts it matches.
 */
export async function answerWithRule(context: AnswerContext, request: PlanRequest, answer: PersonAnswer): Promise<Answered> {
  const { paths, mailbox, board, store } = context;
  if (answer.always && !request.answer && (request.kind !== 'permission' || !answer.approve))
    throw new TeamdError('USAGE', '--always is for approving a permission request: it adds an allow rule');
  const rule = answer.always && !request.answer ? addAllowRule(context, request, answer.exact === true) : null;
  const response = await answerRequest(mailbox, board, request, { approve: answer.approve, feedback: answer.feedback });
  const alsoApproved: PlanRequest[] = [];
  if (rule)
    for (const other of await pendingPlanRequests(mailbox, board, paths, scanFileOf(store, paths)))
      if (other.requestId !== request.requestId && ruleAllows(rule, other, path.dirname(paths.root))) {
        await answerRequest(mailbox, board, other, { approve: true, feedback: `allowed by the rule ${rule}` });
        alsoApproved.push(other);
      }
  return { request, response, rule, alsoApproved };
}

/** The line the CLI prints for an answer. */
export function describeAnswered(context: Pick<CommandContext, 'paths'>, { request, response, rule, alsoApproved }: Answered): string {
  const approved = response.approve === true;
  const what = request.kind === 'plan' ? 'plan' : `request to run ${request.tool}`;
  const ruleText = rule ? `; added the rule ${rule} to ${settingsFiles(context.paths, '').team}` : '';
  const also = alsoApproved.length ? `; it also approved ${alsoApproved.map((other) => `${other.from}'s ${other.requestId.slice(0, 8)}`).join(', ')}` : '';
  return `${approved ? 'approved' : 'rejected'} ${request.from}'s ${what} ${request.requestId.slice(0, 8)}${request.taskId ? ` for task ${request.taskId}` : ''}${ruleText}${also}\n`;
}

/** The rule `always` would add for this request, or null when it cannot be written as one (the person adds one by hand). */
export function offeredRule(request: PlanRequest, exact = false): string | null {
  return request.kind === 'permission' && !request.answer ? alwaysRule(request.tool ?? '', request.input, exact) : null;
}

/** Whether an allow rule covers a waiting permission request's call whole. */
function ruleAllows(rule: string, request: PlanRequest, workspace: string): boolean {
  if (request.kind !== 'permission' || request.answer || !request.tool) return false;
  const input = (typeof request.input === 'object' && request.input !== null ? request.input : {}) as Record<string, unknown>;
  return ruleCovers(parseRule(rule), { tool: request.tool, input, workspace }) === 'all';
}

/** The allow rule an --always approval adds (permissions/always-rule.ts): a command's prefix, the exact line with --exact, the file for file tools. */
function addAllowRule(context: Pick<CommandContext, 'paths'>, request: PlanRequest, exact: boolean): string {
  const rule = alwaysRule(request.tool ?? '', request.input, exact);
  const file = settingsFiles(context.paths, '').team;
  if (rule === null)
    throw new TeamdError('USAGE', `this call cannot be written as one allow rule; approve it without --always, and add a rule to ${file} by hand`);
  addRuleToSettings(file, 'allow', rule);
  return rule;
}
