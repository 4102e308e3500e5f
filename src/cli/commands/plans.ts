import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { describeRequestInput, readPlanRequests, type PlanRequest } from '../../inbox/plan-requests.js';
import { findRequest, pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { requestClosure } from '../../inbox/request-closure.js';
import { openContext } from '../context.js';
import { answerWithRule, describeAnswered, type PersonAnswer } from '../answer-with-rule.js';
import { formatColumns, printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { firstLine } from '../../text.js';
import { age } from '../request-prompt.js';

/** Answers a teammate's plan or permission request named by its id or a unique prefix; a request already answered is refused. */
async function answerFromCli(io: Io, idOrPrefix: string, answer: PersonAnswer, options: CommonOptions): Promise<void> {
  const context = await openContext(io, options.dir, 'write');
  const { paths, mailbox, store } = context;
  const request = await findRequest(mailbox, store.board, paths, scanFileOf(store, paths), idOrPrefix);
  const answered = await answerWithRule(context, request, answer);
  if (options.json)
    printJson(io, {
      ...answered.response,
      ...(answered.rule ? { rule: answered.rule, alsoApproved: answered.alsoApproved.map((other) => other.requestId) } : {}),
    });
  else io.out(describeAnswered(context, answered));
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
      answerFromCli(io, requestId, { approve: true, feedback: options.feedback, always: options.always, exact: options.exact }, options),
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
      await answerFromCli(io, requestId, { approve: false, feedback: why }, options);
    });
}

export function plansCommand(io: Io): Command {
  return withCommonOptions(new Command('plans').description('plans and permission requests waiting for your answer (teamd approve|reject <id>)'))
    .option('--all', 'also the plans already answered')
    .option('--watch', 'walk the waiting requests one at a time, answering each with a line (a, A, r, s, q), then wait for new ones')
    .action(async (options: CommonOptions & { all?: boolean; watch?: boolean }) => {
      if (options.watch && (options.all || options.json))
        throw new TeamdError('USAGE', `--watch asks about each waiting request in turn; it cannot be combined with ${options.all ? '--all' : '--json'}`);
      // Loaded only for the walk: plain `teamd plans` pays nothing for it.
      if (options.watch) return (await import('./plans-walk.js')).walkRequests(io, await openContext(io, options.dir, 'write'));
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
