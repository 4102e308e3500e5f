import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { findPlanRequest, readPlanRequests, type PlanRequest } from '../../inbox/plan-requests.js';
import { LEAD } from '../../roster/roster.js';
import { openContext } from '../context.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

/** Answers a teammate's plan request named by its id or a unique prefix; a request already answered is refused. */
function answerPlan(io: Io, idOrPrefix: string, approve: boolean, feedback: string, options: CommonOptions): void {
  const { paths, mailbox } = openContext(io, options.dir, 'write');
  const request = findPlanRequest(readPlanRequests(paths), idOrPrefix);
  if (request.answer)
    throw new TeamdError(
      'INVALID_TRANSITION',
      `${request.from}'s plan ${request.requestId.slice(0, 8)} was already ${request.answer.approve ? 'approved' : 'rejected'} at ${request.answer.at}; nothing was sent`,
    );
  const response = mailbox.send({ from: LEAD, to: request.from, type: 'plan_approval_response', requestId: request.requestId, approve, content: feedback });
  if (options.json) printJson(io, response);
  else
    io.out(
      `${approve ? 'approved' : 'rejected'} ${request.from}'s plan ${request.requestId.slice(0, 8)}${request.taskId ? ` for task ${request.taskId}` : ''}\n`,
    );
}

export function approveCommand(io: Io): Command {
  return withCommonOptions(new Command('approve').description("approve a teammate's plan (list them: teamd plans)"))
    .argument('<requestId>', 'the request id, or a unique prefix of it (at least 4 characters)')
    .option('--feedback <text>', 'a note for the teammate', '')
    .action((requestId: string, options: CommonOptions & { feedback: string }) => answerPlan(io, requestId, true, options.feedback, options));
}

export function rejectCommand(io: Io): Command {
  return withCommonOptions(new Command('reject').description("reject a teammate's plan, saying why (list them: teamd plans)"))
    .argument('<requestId>', 'the request id, or a unique prefix of it (at least 4 characters)')
    .requiredOption('--feedback <text>', 'what to change')
    .action((requestId: string, options: CommonOptions & { feedback: string }) => answerPlan(io, requestId, false, options.feedback, options));
}

export function plansCommand(io: Io): Command {
  return withCommonOptions(new Command('plans').description('plans waiting for your answer (teamd approve|reject <id>)'))
    .option('--all', 'also the plans already answered')
    .action((options: CommonOptions & { all?: boolean }) => {
      const { paths } = openContext(io, options.dir, 'read');
      const requests = readPlanRequests(paths).filter((request) => options.all || request.answer === null);
      if (options.json) return printJson(io, requests);
      if (requests.length === 0) return io.out(options.all ? 'no plan requests\n' : 'no plans waiting for an answer\n');
      io.out(formatPlans(requests, new Date()));
    });
}

function formatPlans(requests: readonly PlanRequest[], now: Date): string {
  const rows = requests.map((request) => [
    request.requestId.slice(0, 8),
    request.from,
    request.taskId === null ? '-' : String(request.taskId),
    age(now.getTime() - Date.parse(request.at)),
    request.answer ? (request.answer.approve ? 'approved' : 'rejected') : 'waiting',
    firstLine(request.plan),
  ]);
  const header = ['ID', 'TEAMMATE', 'TASK', 'AGE', 'ANSWER', 'PLAN'];
  const widths = header.slice(0, 5).map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]): string =>
    `${row
      .slice(0, 5)
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')}  ${row[5]}`.trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** 45s, 12m, 3h, 2d: how long a plan has waited. */
export function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
