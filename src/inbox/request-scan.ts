import fs from 'node:fs';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readBoundedText } from '../fs/read-text.js';
import type { Logger } from '../logger.js';
import { nameSchema } from '../names.js';
import type { StatePaths } from '../paths.js';
import { LEAD } from '../roster/roster.js';
import type { MailStore } from '../store/mail-store.js';
import * as z from '../zod-mini.js';
import { messageSchema } from './message.js';
import {
  answerKey,
  findPlanRequest,
  isLeadAnswer,
  PLAN_REQUEST_TYPES,
  PLAN_RESPONSE_TYPES,
  planRequestOf,
  readPlanRequests,
  type PlanRequest,
} from './plan-requests.js';
import type { ProtocolKey } from './protocol-key.js';

const position = z.number().check(z.int(), z.nonnegative());

/**
 * How far the mailboxes have been read for plan and permission requests, and what that found:
 * derived from them alone, so it can always be thrown away and read again from the start.
 */
export const requestScanSchema = z.object({
  /** The lead's inbox is read for requests up to here. */
  lead: position,
  /** Each requester's inbox is read for the lead's answers up to here. */
  answersFrom: z.record(nameSchema, position),
  /** The requests read that no answer was found for, oldest first. */
  pending: z.array(messageSchema),
  /** Answers read before their request was (both appended between two reads of the lead's inbox): applied when it is. */
  early: z.array(z.string()),
});
export type RequestScan = z.infer<typeof requestScanSchema>;

export const EMPTY_SCAN: RequestScan = { lead: 0, answersFrom: {}, pending: [], early: [] };

/** Early answers kept: only a request and its answer appended between two reads need one. */
const MAX_EARLY = 256;
/** A scan file past this is not read (read again from the start instead): pending requests are few. */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;

/**
 * Brings a scan up to date: reads only what was appended to the lead's inbox since, and to the
 * inboxes of those with a request waiting. An inbox shorter than where the scan stopped
 * (replaced, truncated) is read from the start; a replaced lead's inbox starts the scan over.
 */
export async function advanceScan(mail: MailStore, key: ProtocolKey | null, scan: RequestScan): Promise<RequestScan> {
  const from = scan.lead > 0 && scan.lead > (await mail.end(LEAD)) ? EMPTY_SCAN : scan;
  const page = await mail.inbox(LEAD, from.lead, PLAN_REQUEST_TYPES);
  const requests = [...from.pending, ...page.messages.filter((message) => message.requestId !== undefined)];
  const answered = new Set(from.early);
  const answersFrom = { ...from.answersFrom };
  for (const sender of new Set(requests.map((request) => request.from))) {
    let at = answersFrom[sender] ?? 0;
    if (at > 0 && at > (await mail.end(sender))) at = 0;
    const answers = await mail.inbox(sender, at, PLAN_RESPONSE_TYPES);
    for (const message of answers.messages) if (isLeadAnswer(message, key)) answered.add(message.requestId!);
    answersFrom[sender] = answers.next;
  }
  const asked = new Set(requests.map((request) => request.requestId));
  return {
    lead: page.next,
    answersFrom,
    pending: requests.filter((request) => !answered.has(request.requestId!)),
    early: [...answered].filter((id) => !asked.has(id)).slice(-MAX_EARLY),
  };
}

/** The scan the daemon wrote; null when there is none or it cannot be used (then the mailboxes are read from the start). */
export function readRequestScan(file: string): RequestScan | null {
  try {
    const read = readBoundedText(file, MAX_SCAN_BYTES);
    if (read.kind !== 'text') return null;
    const parsed = requestScanSchema.safeParse(JSON.parse(read.text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The plan and permission requests still waiting for an answer, oldest first: what
 * readPlanRequests finds unanswered, but reading the mailboxes only past where the daemon's scan
 * (`scanFile`, kept by RequestScanKeeper) stopped. The lead's inbox keeps every report of the
 * team's life, and reading it whole made `teamd status` slower with every task done. Writes
 * nothing. `scanFile` null (a store that filters by type itself): read from the start.
 */
export async function pendingPlanRequests(mail: MailStore, paths: StatePaths, scanFile: string | null): Promise<PlanRequest[]> {
  const scan = await advanceScan(mail, answerKey(paths), (scanFile && readRequestScan(scanFile)) || EMPTY_SCAN);
  return scan.pending.map((request) => planRequestOf(request, null));
}

/** The daemon's scan for a store: the file store's (a store that filters by type itself keeps none). */
export function scanFileOf(store: { readonly setting: { readonly kind: string } }, paths: StatePaths): string | null {
  return store.setting.kind === 'files' ? paths.requestScan : null;
}

/**
 * The request an id (or a unique prefix of it) names: among those waiting first, read quickly;
 * else among all, so that one already answered is named as such.
 */
export async function findRequest(mail: MailStore, paths: StatePaths, scanFile: string | null, idOrPrefix: string): Promise<PlanRequest> {
  try {
    return findPlanRequest(await pendingPlanRequests(mail, paths, scanFile), idOrPrefix);
  } catch {
    // None or several of those waiting: the whole record says which, or that it was answered.
    return findPlanRequest(await readPlanRequests(mail, paths), idOrPrefix);
  }
}

/**
 * Keeps the daemon's scan of the mailboxes up to date (run/requests.json), so that a command
 * listing the requests waiting reads only the last moments' messages. Called after each look
 * for work; written only when something changed. A scan that cannot be written costs readers
 * time, nothing else: said once in the log.
 */
export class RequestScanKeeper {
  private scan: RequestScan | null = null;
  private failing = false;

  constructor(
    private readonly mail: MailStore,
    private readonly paths: StatePaths,
    private readonly logger: Logger,
  ) {}

  async refresh(): Promise<void> {
    const before = this.scan ?? readRequestScan(this.paths.requestScan) ?? EMPTY_SCAN;
    const after = await advanceScan(this.mail, answerKey(this.paths), before);
    this.scan = after;
    if (!this.failing && sameScan(before, after) && fs.existsSync(this.paths.requestScan)) return;
    try {
      writeFileAtomicSync(this.paths.requestScan, `${JSON.stringify(after)}\n`);
      this.failing = false;
    } catch (error) {
      if (!this.failing)
        this.logger.warn(
          { err: error, file: this.paths.requestScan },
          'could not save the scan of plan requests; teamd status reads more of the mailboxes until it can',
        );
      this.failing = true;
    }
  }
}

function sameScan(a: RequestScan, b: RequestScan): boolean {
  return (
    a.lead === b.lead &&
    a.pending.length === b.pending.length &&
    a.early.length === b.early.length &&
    a.early.every((id, i) => id === b.early[i]) &&
    JSON.stringify(a.answersFrom) === JSON.stringify(b.answersFrom) &&
    a.pending.every((request, i) => request.id === b.pending[i]!.id)
  );
}
