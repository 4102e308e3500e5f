import { todoItemSchema } from '../contracts/todos.js';
import type { Session } from './session.js';
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { isCommitted } from '../errors.js';
import { appendRecordSync } from '../fs/append-record.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { Logger } from '../log/logger.js';
import type { ChatMessage } from '../contracts/model.js';
import { repairConversation } from '../agent/conversation.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readTextIfExists } from '../fs/read-text.js';

export type { PlanRequest, Session } from './session.js';

const MAX_HANDLED = 10_000;

const headerSchema = z.object({
  teamdSession: z.literal(1),
  handled: z.array(z.string()),
  approvedPlan: z.object({ task: z.number().int().positive(), claim: z.number().int().nonnegative() }).nullable().default(null),
  // Sessions written before plans belonged to a task listed bare request ids: they approve nothing now.
  planRequests: z
    .array(
      z.union([
        z.string().transform((requestId) => ({ requestId, task: null, claim: null, answered: true })),
        z.object({ requestId: z.string(), task: z.number().nullable(), claim: z.number().nullable(), answered: z.boolean().default(false) }),
      ]),
    )
    .default([]),
  gaveUp: z.array(z.number().int().positive()).default([]),
  planFor: z.array(z.number().int().positive()).default([]),
  budgetNotice: z.string().nullable().default(null),
  unansweredAt: z.number().int().nonnegative().nullable().default(null),
  todos: z.array(todoItemSchema).default([]),
  callsSinceTodo: z.number().int().nonnegative().default(0),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), cacheReadTokens: z.number(), cacheWriteTokens: z.number() }),
});
const messageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.array(z.looseObject({ type: z.string() })) });

export function emptySession(): Session {
  return {
    messages: [],
    handled: [],
    approvedPlan: null,
    planRequests: [],
    gaveUp: [],
    planFor: [],
    budgetNotice: null,
    unansweredAt: null,
    todos: [],
    callsSinceTodo: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  };
}

/** Persisted messages at the end that may still change in place (a folded message, an extended turn): compared on every save. */
const TAIL = 3;

/** Appended bytes past which the log is rewritten whole (and at least this multiple of its last whole size). */
const REWRITE_AFTER_BYTES = 1024 * 1024;
const REWRITE_GROWTH = 2;

/**
 * `sessions/<name>.jsonl`, so a restarted teammate continues where it was. A header line, the
 * conversation's messages one per line, then records appended after each step (one write each):
 * `{"set": i, "message": …}` (message i is new or changed), `{"meta": …}` (the header's small
 * fields), `{"handled": [ids]}` (more inbox ids). Nothing is rewritten per step; the file is
 * replaced whole (temp + rename) only when the conversation was rewritten (compaction, repair,
 * folded directives: `rewrite`) or the appended records outgrew the conversation. A record torn by
 * a kill mid-append is the last line and is dropped on load.
 */
export class SessionStore {
  /** How many messages the file holds, and the JSON of the last few (to see which changed). */
  private persisted = 0;
  private tail = new Map<number, string>();
  private meta: string | null = null;
  private handled = 0;
  private appended = 0;
  private wholeBytes = 0;
  private whole = false;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {}

  load(): Session {
    let raw: string | null;
    try {
      raw = readTextIfExists(this.file);
    } catch (error) {
      this.logger.error({ err: error, file: this.file }, 'session file unreadable; starting a fresh conversation');
      return emptySession();
    }
    if (raw === null) return emptySession();
    const { lines, torn } = splitRecords(raw);
    if (torn) this.logger.warn({ file: this.file, bytes: torn.length }, 'dropped a session record torn by a kill mid-write');
    try {
      const session = replay(lines);
      this.noteWhole(session, raw.length);
      // Appending after a torn fragment would glue the next record onto it: the first save rewrites.
      if (torn) this.whole = false;
      return session;
    } catch (error) {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      fs.renameSync(this.file, aside);
      this.logger.error({ err: error, movedTo: aside }, 'session file unreadable; moved aside, starting a fresh conversation');
      return emptySession();
    }
  }

  /**
   * Appends what changed since the last save: the new and changed messages, the header's fields.
   * `durable`: on disk before this returns (fdatasync), for a save that something else's durable
   * write depends on, as an inbox cursor moved past the messages it holds. Other saves may be
   * lost with the machine (never with the process) and the steps are done again.
   */
  save(session: Session, options: { durable?: boolean } = {}): void {
    trimHandled(session);
    if (!this.whole || session.messages.length < this.persisted || session.handled.length < this.handled || this.appended > this.rewriteLimit()) {
      this.rewrite(session);
      return;
    }
    const records: string[] = [];
    const from = Math.max(0, this.persisted - TAIL);
    for (let i = from; i < session.messages.length; i++) {
      const json = JSON.stringify(session.messages[i]);
      if (i < this.persisted && this.tail.get(i) === json) continue;
      records.push(`{"set":${i},"message":${json}}`);
      this.tail.set(i, json);
    }
    for (const i of [...this.tail.keys()]) if (i < session.messages.length - TAIL) this.tail.delete(i);
    this.persisted = session.messages.length;
    const meta = JSON.stringify(metaOf(session));
    if (meta !== this.meta) {
      records.push(`{"meta":${meta}}`);
      this.meta = meta;
    }
    if (session.handled.length > this.handled) {
      records.push(JSON.stringify({ handled: session.handled.slice(this.handled) }));
      this.handled = session.handled.length;
    }
    if (records.length === 0) return;
    const text = `${records.join('\n')}\n`;
    // One write(2): a record is never interleaved, and a kill leaves at most a torn last line.
    try {
      appendRecordSync(this.file, text, { durable: options.durable ?? false });
    } catch (error) {
      // Not appended (a full disk), or only part of it: what this save counted as on disk is not,
      // so the next save writes the whole session. Appended but not synced, it is on disk.
      if (!isCommitted(error)) this.whole = false;
      throw error;
    }
    this.appended += Buffer.byteLength(text);
  }

  /** Replaces the file whole: after the conversation was changed anywhere but at its end. */
  rewrite(session: Session): void {
    trimHandled(session);
    const header = { teamdSession: 1, handled: session.handled, ...metaOf(session) };
    const lines = [JSON.stringify(header), ...session.messages.map((message) => JSON.stringify(message))];
    const text = `${lines.join('\n')}\n`;
    ensurePrivateDir(path.dirname(this.file));
    try {
      writeFileAtomicSync(this.file, text);
    } catch (error) {
      // In place but not synced: it is the file now.
      if (isCommitted(error)) this.noteWhole(session, text.length);
      throw error;
    }
    this.noteWhole(session, text.length);
  }

  private noteWhole(session: Session, bytes: number): void {
    this.whole = true;
    this.persisted = session.messages.length;
    this.tail = new Map(
      session.messages.slice(-TAIL).map((message, k) => [session.messages.length - Math.min(TAIL, session.messages.length) + k, JSON.stringify(message)]),
    );
    this.meta = JSON.stringify(metaOf(session));
    this.handled = session.handled.length;
    this.appended = 0;
    this.wholeBytes = bytes;
  }

  private rewriteLimit(): number {
    return Math.max(REWRITE_AFTER_BYTES, this.wholeBytes * REWRITE_GROWTH);
  }
}

function trimHandled(session: Session): void {
  if (session.handled.length > MAX_HANDLED) session.handled.splice(0, session.handled.length - MAX_HANDLED);
}

function metaOf(session: Session): Omit<z.input<typeof headerSchema>, 'teamdSession' | 'handled'> {
  return {
    approvedPlan: session.approvedPlan,
    planRequests: session.planRequests.slice(-100),
    gaveUp: session.gaveUp.slice(-1000),
    planFor: session.planFor.slice(-1000),
    budgetNotice: session.budgetNotice,
    unansweredAt: session.unansweredAt,
    todos: session.todos,
    callsSinceTodo: session.callsSinceTodo,
    usage: session.usage,
  };
}

const setSchema = z.object({ set: z.number().int().nonnegative(), message: messageSchema });
const metaSchema = z.object({ meta: headerSchema.omit({ teamdSession: true, handled: true }) });
const handledSchema = z.object({ handled: z.array(z.string()) });

/** The complete lines of a session file, and a last line without its newline (a record torn by a kill), which is never applied. */
function splitRecords(raw: string): { lines: string[]; torn: string } {
  const lines = raw.split('\n');
  const torn = lines.pop() ?? '';
  return { lines: lines.filter((line) => line.length > 0), torn };
}

/** A session file's text as a session, without touching the file (for readers other than its teammate); throws when it cannot be read. */
export function parseSession(raw: string): Session {
  return replay(splitRecords(raw).lines);
}

/** The header, the messages, then the appended records in order. Throws on anything it cannot read. */
function replay(lines: readonly string[]): Session {
  const [first, ...rest] = lines;
  const header = headerSchema.parse(JSON.parse(first ?? ''));
  const session: Session = {
    messages: [],
    handled: header.handled,
    approvedPlan: header.approvedPlan,
    planRequests: header.planRequests,
    gaveUp: header.gaveUp,
    planFor: header.planFor,
    budgetNotice: header.budgetNotice,
    unansweredAt: header.unansweredAt,
    todos: header.todos,
    callsSinceTodo: header.callsSinceTodo,
    usage: header.usage,
  };
  for (const line of rest) {
    const json: unknown = JSON.parse(line);
    if (typeof json === 'object' && json !== null && 'set' in json) {
      const { set, message } = setSchema.parse(json);
      if (set > session.messages.length) throw new Error(`record sets message ${set} of ${session.messages.length}`);
      session.messages[set] = message as ChatMessage;
    } else if (typeof json === 'object' && json !== null && 'meta' in json) {
      const { meta } = metaSchema.parse(json);
      Object.assign(session, meta);
    } else if (typeof json === 'object' && json !== null && 'handled' in json && !('role' in json)) {
      session.handled.push(...handledSchema.parse(json).handled);
    } else {
      session.messages.push(messageSchema.parse(json) as ChatMessage);
    }
  }
  return session;
}

/** The saved conversation, repaired (and rewritten) where the API would refuse it as it is. */
export function loadRepairedSession(sessions: SessionStore, logger: Logger): Session {
  const session = sessions.load();
  const repairs = repairConversation(session.messages);
  if (repairs.droppedBlocks + repairs.answeredCalls + repairs.droppedResults > 0) {
    logger.warn({ repairs }, 'repaired the saved conversation so the API accepts it');
    sessions.rewrite(session);
  }
  return session;
}
