import fs from 'node:fs';
import { writeFileWholeSync } from '../fs/atomic-write.js';
import { readBoundedText } from '../fs/read-text.js';
import { statIfAny } from '../fs/stat-if-any.js';
import type { Logger } from '../log/logger.js';
import { nameSchema } from '../contracts/names.js';
import type { StatePaths } from '../paths.js';
import { LEAD } from '../contracts/roster.js';
import type { MailStore } from '../contracts/mail-store.js';
import * as z from '../contracts/zod-mini.js';
import { lineStartsAt } from '../store/files/inbox-file.js';
import { messageSchema } from '../contracts/message.js';
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
import type { ProtocolKey } from '../store/protocol-key.js';
import type { TaskBoard } from '../contracts/task-board.js';
import { openRequests } from './request-closure.js';

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
  /** Which file each position is in (inode and birth time): a position in a replaced inbox is not used. */
  inboxes: z._default(z.record(nameSchema, z.string()), {}),
});
export type RequestScan = z.infer<typeof requestScanSchema>;

export const EMPTY_SCAN: RequestScan = { lead: 0, answersFrom: {}, pending: [], early: [], inboxes: {} };

/** The file store's inboxes, for telling that a position still means what it meant when a scan stopped there. */
export interface InboxFiles {
  /** Which file the inbox is now: inode and birth time, so a file moved into its place (a restore, an editor's save) is told apart. */
  identity(name: string): string;
  /** Whether a line starts at this position: one copied over the inbox in place (cp) most likely cuts a line there. */
  lineStartsAt(name: string, at: number): boolean;
}

export function inboxFiles(paths: StatePaths): InboxFiles {
  return {
    identity: (name) => {
      const stat = statIfAny(paths.inboxFile(name));
      return stat ? `${stat.ino}:${stat.birthtimeMs}` : 'none';
    },
    lineStartsAt: (name, at) => lineStartsAt(paths.inboxFile(name), at),
  };
}

/** Early answers kept: only a request and its answer appended between two reads need one. */
const MAX_EARLY = 256;
/** A scan file past this is not read (read again from the start instead): pending requests are few. */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;

/**
 * Brings a scan up to date: reads only what was appended to the lead's inbox since, and to the
 * inboxes of those with a request waiting. An inbox shorter than where the scan stopped, or
 * another file in its place, is read from the start; for the lead's inbox, the scan starts over.
 */
export async function advanceScan(mail: MailStore, key: ProtocolKey | null, scan: RequestScan, files: InboxFiles | null = null): Promise<RequestScan> {
  const moved = async (name: string, at: number, was: string | undefined, now: string | null): Promise<boolean> =>
    at > 0 && (at > (await mail.end(name)) || (files !== null && ((was !== undefined && was !== now) || !files.lineStartsAt(name, at))));
  const leadNow = files?.identity(LEAD) ?? null;
  const from = (await moved(LEAD, scan.lead, scan.inboxes[LEAD], leadNow)) ? EMPTY_SCAN : scan;
  const page = await mail.inbox(LEAD, from.lead, PLAN_REQUEST_TYPES);
  const requests = [...from.pending, ...page.messages.filter((message) => message.requestId !== undefined)];
  const answered = new Set(from.early);
  const answersFrom = { ...from.answersFrom };
  const inboxes: Record<string, string> = { ...from.inboxes };
  if (leadNow !== null) inboxes[LEAD] = leadNow;
  for (const sender of new Set(requests.map((request) => request.from))) {
    const now = files?.identity(sender) ?? null;
    let at = answersFrom[sender] ?? 0;
    if (await moved(sender, at, from.inboxes[sender], now)) at = 0;
    const answers = await mail.inbox(sender, at, PLAN_RESPONSE_TYPES);
    for (const message of answers.messages) if (isLeadAnswer(message, key)) answered.add(message.requestId!);
    answersFrom[sender] = answers.next;
    if (now !== null) inboxes[sender] = now;
  }
  const asked = new Set(requests.map((request) => request.requestId));
  return {
    lead: page.next,
    answersFrom,
    pending: requests.filter((request) => !answered.has(request.requestId!)),
    early: [...answered].filter((id) => !asked.has(id)).slice(-MAX_EARLY),
    inboxes,
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
 * readPlanRequests finds unanswered and not closed, but reading the mailboxes only past where the daemon's scan
 * (`scanFile`, kept by RequestScanKeeper) stopped. The lead's inbox keeps every report of the
 * team's life, and reading it whole made `teamd status` slower with every task done. Writes
 * nothing. `scanFile` null (a store that filters by type itself): read from the start.
 */
export async function pendingPlanRequests(mail: MailStore, board: Pick<TaskBoard, 'get'>, paths: StatePaths, scanFile: string | null): Promise<PlanRequest[]> {
  const from = scanFile ? (readRequestScan(scanFile) ?? EMPTY_SCAN) : EMPTY_SCAN;
  const scan = await advanceScan(mail, answerKey(paths), from, scanFile ? inboxFiles(paths) : null);
  // A plan for a claim that is over waits for nothing (request-closure.ts).
  return openRequests(
    board,
    scan.pending.map((request) => planRequestOf(request, null)),
  );
}

/** The daemon's scan for a store: the file store's (a store that filters by type itself keeps none). */
export function scanFileOf(store: { readonly mail: Pick<MailStore, 'readsByType'> }, paths: StatePaths): string | null {
  return store.mail.readsByType ? null : paths.requestScan;
}

/**
 * The request an id (or a unique prefix of it) names: among those waiting first, read quickly;
 * else among all, so that one already answered, or closed, is named as such.
 */
export async function findRequest(
  mail: MailStore,
  board: Pick<TaskBoard, 'get'>,
  paths: StatePaths,
  scanFile: string | null,
  idOrPrefix: string,
): Promise<PlanRequest> {
  try {
    return findPlanRequest(await pendingPlanRequests(mail, board, paths, scanFile), idOrPrefix);
  } catch {
    // None or several of those waiting: the whole record says which, or that it was answered.
    return findPlanRequest(await readPlanRequests(mail, paths), idOrPrefix);
  }
}

/** How long after a look the daemon brings its scan up to date: off the path that rings teammates, once per burst. */
export const SCAN_DELAY_MS = 500;
/** Positions that moved less than this since the scan on disk are not written for: a reader reads that much more. */
const WRITE_SLACK_BYTES = 256 * 1024;

/**
 * Keeps the daemon's scan of the mailboxes up to date (run/requests.json), so that a command
 * listing the requests waiting reads only the last moments' messages. `soon()` after each look
 * for work: the scan is brought up to date once, SCAN_DELAY_MS later. Written (whole, not synced:
 * it is derived) when what waits changed, or the positions moved past WRITE_SLACK_BYTES. A scan
 * that cannot be written costs readers time, nothing else: said once in the log.
 */
export class RequestScanKeeper {
  private scan: RequestScan | null = null;
  private written: RequestScan | null = null;
  private failing = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly mail: MailStore,
    private readonly paths: StatePaths,
    private readonly logger: Logger,
    private readonly delayMs = SCAN_DELAY_MS,
  ) {}

  soon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      void this.refresh()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'could not bring the scan of plan requests up to date'))
        .finally(() => {
          this.timer = null;
        });
    }, this.delayMs);
    // Never what keeps the daemon alive: one due as it stops is dropped, and the next start reads on from the file.
    this.timer.unref();
  }

  async refresh(): Promise<void> {
    const before = this.scan ?? readRequestScan(this.paths.requestScan) ?? EMPTY_SCAN;
    const after = await advanceScan(this.mail, answerKey(this.paths), before, inboxFiles(this.paths));
    this.scan = after;
    if (!this.failing && this.written && worthKeeping(this.written, after) && fs.existsSync(this.paths.requestScan)) return;
    try {
      writeFileWholeSync(this.paths.requestScan, `${JSON.stringify(after)}\n`);
      this.written = after;
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

/** Whether the scan on disk still serves: the same requests waiting and answers early, the same files, its positions close behind. */
function worthKeeping(onDisk: RequestScan, now: RequestScan): boolean {
  const behind = now.lead - onDisk.lead + Object.entries(now.answersFrom).reduce((sum, [name, at]) => sum + at - (onDisk.answersFrom[name] ?? 0), 0);
  return (
    behind >= 0 &&
    behind < WRITE_SLACK_BYTES &&
    onDisk.pending.length === now.pending.length &&
    onDisk.pending.every((request, i) => request.id === now.pending[i]!.id) &&
    onDisk.early.length === now.early.length &&
    onDisk.early.every((id, i) => id === now.early[i]) &&
    JSON.stringify(onDisk.inboxes) === JSON.stringify(now.inboxes)
  );
}
