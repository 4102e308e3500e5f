import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { readInboxFrom } from '../../inbox/inbox-file.js';
import { LEAD } from '../../roster/roster.js';
import { openContext } from '../context.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

/** Answers a teammate's plan_approval_request found in the lead's inbox by its requestId. */
function answerPlan(io: Io, requestId: string, approve: boolean, feedback: string, options: CommonOptions): void {
  const { paths, mailbox } = openContext(io, options.dir, 'write');
  const request = readInboxFrom(paths.inboxFile(LEAD), 0)
    .messages.map((m) => m.message)
    .find((m) => m.type === 'plan_approval_request' && m.requestId === requestId);
  if (!request) {
    throw new TeamdError('INVALID_INPUT', `no plan approval request ${requestId} in the lead's inbox (list them: teamd inbox lead)`);
  }
  const response = mailbox.send({ from: LEAD, to: request.from, type: 'plan_approval_response', requestId, approve, content: feedback });
  if (options.json) printJson(io, response);
  else io.out(`${approve ? 'approved' : 'rejected'} ${request.from}'s plan (${requestId})\n`);
}

export function approveCommand(io: Io): Command {
  return withCommonOptions(new Command('approve').description("approve a teammate's plan (the requestId is in: teamd inbox lead)"))
    .argument('<requestId>', 'the plan_approval_request to answer')
    .option('--feedback <text>', 'a note for the teammate', '')
    .action((requestId: string, options: CommonOptions & { feedback: string }) => answerPlan(io, requestId, true, options.feedback, options));
}

export function rejectCommand(io: Io): Command {
  return withCommonOptions(new Command('reject').description("reject a teammate's plan, saying why"))
    .argument('<requestId>', 'the plan_approval_request to answer')
    .requiredOption('--feedback <text>', 'what to change')
    .action((requestId: string, options: CommonOptions & { feedback: string }) => answerPlan(io, requestId, false, options.feedback, options));
}
