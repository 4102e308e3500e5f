import { TeamdError } from '../errors.js';
import { LEAD } from '../contracts/roster.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Message } from '../contracts/message.js';
import type { TaskBoard } from '../contracts/task-board.js';
import type { PlanRequest } from './plan-requests.js';
import { requestClosure } from './request-closure.js';

/**
 * Answers a teammate's plan or permission request (found with findPlanRequest) as the lead,
 * signed: the teammate honours it. A request already answered is refused, whoever answered it:
 * the person (teamd approve) and the lead agent never both decide. A plan request whose claim is
 * over (request-closure.ts) is refused too: its approval would open the tools for nobody's work.
 */
export async function answerRequest(
  mailbox: MailStore,
  board: Pick<TaskBoard, 'get'>,
  request: PlanRequest,
  answer: { readonly approve: boolean; readonly feedback: string },
): Promise<Message> {
  if (request.answer)
    throw new TeamdError(
      'INVALID_TRANSITION',
      `${request.from}'s ${request.kind} request ${request.requestId.slice(0, 8)} was already ${request.answer.approve ? 'approved' : 'rejected'} at ${request.answer.at}; nothing was sent`,
    );
  const closed = await requestClosure(board, request);
  if (closed !== null)
    throw new TeamdError(
      'STALE_CLAIM',
      `${request.from}'s plan request ${request.requestId.slice(0, 8)} ${closed}: the request is closed; nothing was sent (teamd plans lists those waiting)`,
    );
  const type = request.kind === 'permission' ? 'permission_response' : 'plan_approval_response';
  return mailbox.send({ from: LEAD, to: request.from, type, requestId: request.requestId, approve: answer.approve, content: answer.feedback });
}
