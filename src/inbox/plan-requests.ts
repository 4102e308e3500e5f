import fs from 'node:fs';
import { TeamdError } from '../errors.js';
import type { StatePaths } from '../paths.js';
import { LEAD } from '../contracts/roster.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Message, MessageType } from '../contracts/message.js';
import { ProtocolKey } from '../store/protocol-key.js';

/** A teammate's plan_approval_request or permission_request, and the lead's answer to it if one was sent. */
export interface PlanRequest {
  readonly kind: 'plan' | 'permission';
  readonly requestId: string;
  readonly from: string;
  readonly taskId: number | null;
  /** The claim of the task the plan is for (a plan is for one claim); null in requests sent before plans named it. */
  readonly claim: number | null;
  /** The plan, or what the teammate asks to do. */
  readonly plan: string;
  /** For a permission request: the tool and its input. */
  readonly tool: string | null;
  readonly input: unknown;
  readonly at: string;
  readonly answer: { readonly approve: boolean; readonly at: string } | null;
}

/** What a permission request asks to run, in a few words: its command, else its file, else its input as JSON. */
export function describeRequestInput(input: unknown): string {
  const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (typeof record.command === 'string') return record.command;
  if (typeof record.path === 'string') return record.path;
  return JSON.stringify(input) ?? '';
}

export const PLAN_REQUEST_TYPES: readonly MessageType[] = ['plan_approval_request', 'permission_request'];
export const PLAN_RESPONSE_TYPES: readonly MessageType[] = ['plan_approval_response', 'permission_response'];

/**
 * Every plan request in the lead's inbox, oldest first, each with the answer found in its
 * sender's inbox: the two mailboxes are the record, so nothing else has to be kept in step.
 * Reads both whole: for the requests still waiting, `pendingPlanRequests` (request-scan.ts)
 * reads only what was appended since the daemon last looked.
 */
export async function readPlanRequests(mail: MailStore, paths: StatePaths): Promise<PlanRequest[]> {
  // Only these types are parsed (and returned: test/store/mail-contract.test.ts): the lead's
  // inbox holds every report of the team's life.
  const requests = (await mail.inbox(LEAD, 0, PLAN_REQUEST_TYPES)).messages.filter((message) => message.requestId !== undefined);
  const key = answerKey(paths);
  const answers = new Map<string, { approve: boolean; at: string }>();
  for (const sender of new Set(requests.map((request) => request.from))) {
    for (const message of (await mail.inbox(sender, 0, PLAN_RESPONSE_TYPES)).messages) {
      if (isLeadAnswer(message, key) && !answers.has(message.requestId!))
        answers.set(message.requestId!, { approve: message.approve === true, at: message.timestamp });
    }
  }
  return requests.map((request) => planRequestOf(request, answers.get(request.requestId!) ?? null));
}

/** The key that proves an answer came from the lead; null when there is none yet (then nothing was ever signed, and a reader must not create one). */
export function answerKey(paths: StatePaths): ProtocolKey | null {
  return fs.existsSync(paths.protocolKey) ? new ProtocolKey(paths.protocolKey) : null;
}

/** Only the lead's signed answers count: a forged "approval" appended to an inbox answers nothing. */
export function isLeadAnswer(message: Message, key: ProtocolKey | null): boolean {
  return message.from === LEAD && message.requestId !== undefined && key?.verify(message) === true;
}

/** A request message as the commands show it. */
export function planRequestOf(request: Message, answer: PlanRequest['answer']): PlanRequest {
  return {
    kind: request.type === 'permission_request' ? 'permission' : 'plan',
    tool: typeof request.tool === 'string' ? request.tool : null,
    input: request.input,
    requestId: request.requestId!,
    from: request.from,
    taskId: typeof request.taskId === 'number' ? request.taskId : null,
    claim: typeof request.claim === 'number' ? request.claim : null,
    plan: request.content,
    at: request.timestamp,
    answer,
  };
}

/** Shortest id prefix a person may type: long enough to be unique among a team's requests in practice. */
export const MIN_ID_PREFIX = 4;

/** The one request an id (or a unique prefix of it) names; refused when none or several match. */
export function findPlanRequest(requests: readonly PlanRequest[], idOrPrefix: string): PlanRequest {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (wanted.length < MIN_ID_PREFIX)
    throw new TeamdError('USAGE', `give at least ${MIN_ID_PREFIX} characters of the request id, got ${JSON.stringify(idOrPrefix)} (list them: teamd plans)`);
  const exact = requests.find((request) => request.requestId === wanted);
  if (exact) return exact;
  const matches = requests.filter((request) => request.requestId.startsWith(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new TeamdError('INVALID_INPUT', `no plan or permission request ${idOrPrefix} in the lead's inbox (list them: teamd plans)`);
  throw new TeamdError(
    'INVALID_INPUT',
    `${idOrPrefix} matches ${matches.length} requests (${matches.map((m) => `${m.requestId.slice(0, 8)} from ${m.from}`).join(', ')}): give more of the id`,
  );
}
