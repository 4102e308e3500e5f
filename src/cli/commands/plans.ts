import path from 'node:path';
import { Command } from 'commander';
import { alwaysRule } from '../../permissions/always-rule.js';
import { parseRule, ruleCovers } from '../../permissions/rules.js';
import { TeamdError } from '../../errors.js';
import { describeRequestInput, readPlanRequests, type PlanRequest } from '../../inbox/plan-requests.js';
import { findRequest, pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { answerRequest } from '../../inbox/answer-request.js';
import { requestClosure } from '../../inbox/request-closure.js';
import { openContext } from '../context.js';
import { formatColumns, printJson, type Io } from '../output.js';
import type { StatePaths } from '../../paths.js';
import { settingsFiles } from '../../teammate/policy-wiring.js';
import { addRuleToSettings } from '../../settings/settings-edit.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { firstLine } from '../../text.js';

/** Answers a teammate's plan or permission request named by its id or a unique prefix; a request already answered is refused. */
async function answerFromCli(
  io: Io,
  idOrPrefix: string,
  approve: boolean,
  feedback: string,
  options: CommonOptions & { always?: boolean; exact?: boolean },
): Promise<void> {
  const { paths, mailbox, store } = await openContext(io, options.dir, 'write');
  const request = await findRequest(mailbox, store.board, paths, scanFileOf(store, paths), idOrPrefix);
  if (options.always && !request.answer && (request.kind !== 'permission' || !approve))
    throw new TeamdError('USAGE', '--always is for approving a permission request: it adds an allow rule');
  // The rule first: were the answer sent without it, the next such call would be asked again.
  const rule = options.always && !request.answer ? addAllowRule(paths, request, options.exact === true) : null;
  const response = await answerRequest(mailbox, store.board, request, { approve, feedback });
  // Requests waiting for calls the new rule allows are answered by it too, as Claude Code applies a rule to matching prompts.
  const alsoApproved: PlanRequest[] = [];
  if (rule)
    for (const other of await pendingPlanRequests(mailbox, store.board, paths, scanFileOf(store, paths)))
      if (other.requestId !== request.requestId && ruleAllows(rule, other, path.dirname(paths.root))) {
        await answerRequest(mailbox, store.board, other, { approve: true, feedback: `allowed by the rule ${rule}` });
        alsoApproved.push(other);
      }
  if (options.json) printJson(io, { ...response, ...(rule ? { rule, alsoApproved: alsoApproved.map((other) => other.requestId) } : {}) });
  else
    io.out(
      `${approve ? 'approved' : 'rejected'} ${request.from}'s ${request.kind === 'plan' ? 'plan' : `request to run ${request.tool}`} ${request.requestId.slice(0, 8)}${request.taskId ? ` for task ${request.taskId}` : ''}${rule ? `; added the rule ${rule} to ${settingsFiles(paths, '').team}` : ''}${alsoApproved.length ? `; it also approved ${alsoApproved.map((other) => `${other.from}'s ${other.requestId.slice(0, 8)}`).join(', ')}` : ''}\n`,
    );
}

/** Whether an allow rule covers a waiting permission request's call whole. */
function ruleAllows(rule: string, request: PlanRequest, workspace: string): boolean {
  if (request.kind !== 'permission' || request.answer || !request.tool) return false;
  const input = (typeof request.input === 'object' && request.input !== null ? request.input : {}) as Record<string, unknown>;
  return ruleCovers(parseRule(rule), { tool: request.tool, input, workspace }) === 'all';
}

export function approveCommand(io: Io): Command {
  return withCommonOptions(new Command('approve').description("approve a teammate's plan or permission request (list them: teamd plans)"))
    .argument('<requestId>', 'the request id, or a unique prefix of it (at least 4 characters)')
    .option('--feedback <text>', 'a note for the teammate', '')
    .option(
      '--always',
      "for a permission request: also allow such calls from now on (adds Claude Code's prefix rule, Bash(npm run:*), to settings.json) and approve the waiting requests it covers",
    )
    .option('--exact', 'with --always: a rule for this exact command line, not its prefix')
    .action((requestId: string, options: CommonOptions & { feedback: string; always?: boolean; exact?: boolean }) =>
      answerFromCli(io, requestId, true, options.feedback, options),
    );
}

export function rejectCommand(io: Io): Command {
  return withCommonOptions(new Command('reject').description("reject a teammate's plan or permission request, saying why (list them: teamd plans)"))
    .argument('<requestId>', 'the request id, or a unique prefix of it (at least 4 characters)')
    .option('--feedback <text>', 'what to change (a plan needs it)')
    .option('--reason <text>', 'why (the same as --feedback)')
    .action(async (requestId: string, options: CommonOptions & { feedback?: string; reason?: string }) => {
      const why = options.feedback ?? options.reason;
      if (why === undefined || why.trim() === '') throw new TeamdError('USAGE', 'say why with --feedback <text> (or --reason <text>): the teammate reads it');
      await answerFromCli(io, requestId, false, why, options);
    });
}

export function plansCommand(io: Io): Command {
  return withCommonOptions(new Command('plans').description('plans and permission requests waiting for your answer (teamd approve|reject <id>)'))
    .option('--all', 'also the plans already answered')
    .action(async (options: CommonOptions & { all?: boolean }) => {
      const { paths, mailbox, store } = await openContext(io, options.dir, 'read');
      const listed = options.all ? await readPlanRequests(mailbox, paths) : await pendingPlanRequests(mailbox, store.board, paths, scanFileOf(store, paths));
      // Listed whole, a request whose claim is over says so (request-closure.ts).
      const requests: Listed[] = [];
      for (const request of listed) requests.push({ ...request, closed: options.all ? await requestClosure(store.board, request) : null });
      if (options.json) return printJson(io, requests);
      if (requests.length === 0) return io.out(options.all ? 'no plan or permission requests\n' : 'nothing waiting for your answer\n');
      io.out(formatPlans(requests, new Date()));
    });
}

type Listed = PlanRequest & { readonly closed: string | null };

function formatPlans(requests: readonly Listed[], now: Date): string {
  const rows = requests.map((request) => [
    request.requestId.slice(0, 8),
    request.kind,
    request.from,
    request.taskId === null ? '-' : String(request.taskId),
    age(now.getTime() - Date.parse(request.at)),
    request.answer ? (request.answer.approve ? 'approved' : 'rejected') : request.closed ? 'closed' : 'waiting',
    request.kind === 'permission' ? firstLine(`${request.tool ?? '?'}: ${describeRequestInput(request.input)}`, 80) : firstLine(request.plan, 80),
  ]);
  return formatColumns(['ID', 'KIND', 'TEAMMATE', 'TASK', 'AGE', 'ANSWER', 'WHAT'], rows);
}

/** 45s, 12m, 3h, 2d: how long a plan has waited. */
export function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** The allow rule an --always approval adds (inbox/always-rule.ts): a command's prefix, the exact line with --exact, the file for file tools. */
function addAllowRule(paths: StatePaths, request: PlanRequest, exact: boolean): string {
  const rule = alwaysRule(request.tool ?? '', request.input, exact);
  if (rule === null)
    throw new TeamdError(
      'USAGE',
      `this call cannot be written as one allow rule; approve it without --always, and add a rule to ${settingsFiles(paths, '').team} by hand`,
    );
  addRuleToSettings(settingsFiles(paths, '').team, 'allow', rule);
  return rule;
}
