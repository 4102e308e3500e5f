import { assertNever, TeamdError } from '../../errors.js';
import type { PlanRequest } from '../../inbox/plan-requests.js';
import { findRequest, pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { answerWithRule, describeAnswered, offeredRule, type PersonAnswer } from '../answer-with-rule.js';
import type { CommandContext } from '../context.js';
import { LineQueue } from '../line-queue.js';
import type { Io } from '../output.js';
import { requestPrompt, walkChoice } from '../request-prompt.js';

/**
 * `teamd plans --watch`: the waiting plan and permission requests, oldest first, one at a time,
 * each answered with one line (a, A, r, s, q); then it waits for the next request, ringing the
 * terminal's bell as one arrives, until q, Ctrl-C or the end of standard input. A request
 * answered elsewhere meanwhile (teamd approve, watch, the lead agent) is refused in one line and
 * the walk goes on.
 */
export async function walkRequests(io: Io, context: CommandContext): Promise<void> {
  const input = io.stdin;
  if (!input) throw new TeamdError('USAGE', 'teamd plans --watch reads your answers from standard input');
  const out = io.stdoutStream();
  // The bell goes to the terminal as it is (io.out writes control characters out as text).
  const ringBell = out.isTTY ? () => out.write('\x07') : () => {};
  const lines = new LineQueue(input);
  const bell = await context.store.bell({ team: true }, { rescanMs: 1000 });
  const stopper = new AbortController();
  const quit = (): void => stopper.abort();
  process.once('SIGINT', quit);
  process.once('SIGTERM', quit);
  const skipped = new Set<string>();
  const shown = new Set<string>();
  let idleSaid = false;
  try {
    while (!stopper.signal.aborted) {
      // Everything is read now: a ring from before this read says nothing new.
      bell.drain();
      const waiting = (await pendingPlanRequests(context.mailbox, context.board, context.paths, scanFileOf(context.store, context.paths))).filter(
        (request) => !skipped.has(request.requestId),
      );
      const request = waiting[0];
      if (request === undefined) {
        if (!idleSaid)
          io.out(`nothing waits for your answer${skipped.size > 0 ? ` but the ${skipped.size} you skipped` : ''}; waiting for requests (q quits)\n`);
        idleSaid = true;
        const line = await waitForChange(bell, lines, stopper.signal);
        if (line === null) break;
        if (line !== undefined && walkChoice(line).kind === 'quit') break;
        continue;
      }
      idleSaid = false;
      if (!shown.has(request.requestId)) ringBell();
      shown.add(request.requestId);
      const answer = await askFor(io, lines, request, waiting.length, stopper.signal);
      if (answer === 'quit') break;
      if (answer === 'skip') {
        skipped.add(request.requestId);
        io.out(`skipped ${request.requestId.slice(0, 8)}: it still waits (teamd plans lists it)\n`);
        continue;
      }
      if (answer === 'again') continue;
      try {
        // Read again now: the person took their time, and another answer may have come meanwhile.
        const now = await findRequest(context.mailbox, context.board, context.paths, scanFileOf(context.store, context.paths), request.requestId);
        io.out(describeAnswered(context, await answerWithRule(context, now, answer)));
      } catch (error) {
        // Answered or closed elsewhere meanwhile: say so in its one line and go on to the next.
        if (!(error instanceof TeamdError)) throw error;
        io.err(`teamd: ${error.message}\n`);
      }
    }
  } finally {
    process.off('SIGINT', quit);
    process.off('SIGTERM', quit);
    lines.close();
    await bell.close();
  }
}

/** The person's answer to one request; 'again' to show it anew (an empty or unknown line), 'quit' at q or the end of input. */
async function askFor(io: Io, lines: LineQueue, request: PlanRequest, waiting: number, signal: AbortSignal): Promise<PersonAnswer | 'skip' | 'quit' | 'again'> {
  const rule = offeredRule(request);
  io.out(requestPrompt(request, waiting, rule, Date.now()));
  const line = await lines.next(signal);
  if (line === null) return 'quit';
  const choice = walkChoice(line);
  switch (choice.kind) {
    case 'approve':
      return { approve: true, feedback: '' };
    case 'always':
      if (rule !== null) return { approve: true, feedback: '', always: true };
      io.out('no rule is offered for this request: a approves it once\n');
      return 'again';
    case 'reject': {
      const reason = choice.reason ?? (await askReason(io, lines, signal));
      return reason === null ? 'quit' : { approve: false, feedback: reason };
    }
    case 'skip':
      return 'skip';
    case 'quit':
      return 'quit';
    case 'again':
      return 'again';
    case 'unknown':
      io.out(`${JSON.stringify(choice.text)} is not an answer: type a, ${rule ? 'A, ' : ''}r, s or q\n`);
      return 'again';
    default:
      return assertNever(choice);
  }
}

/** Why the person rejects: the teammate reads it, so an empty line is asked again. null at the end of input. */
async function askReason(io: Io, lines: LineQueue, signal: AbortSignal): Promise<string | null> {
  for (;;) {
    io.out('why (the teammate reads it)? ');
    const line = await lines.next(signal);
    if (line === null) return null;
    if (line.trim() !== '') return line.trim();
  }
}

/** Waits for a change to the team or a line from the person; the line if one came, null at the end of input or on quit. */
async function waitForChange(bell: { wait(signal?: AbortSignal): Promise<unknown> }, lines: LineQueue, stop: AbortSignal): Promise<string | null | undefined> {
  const woken = new AbortController();
  const either = AbortSignal.any([stop, woken.signal]);
  await Promise.race([bell.wait(either), lines.ready(either)]);
  woken.abort();
  if (stop.aborted) return null;
  const line = lines.take();
  return line === undefined && lines.ended ? null : line;
}
