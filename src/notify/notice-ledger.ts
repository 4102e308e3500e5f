import { noticeLineSchema, type Notice, type NoticeLine } from '../contracts/notifications.js';
import { appendRecordSync } from '../fs/append-record.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readBoundedText } from '../fs/read-text.js';
import type { Logger } from '../log/logger.js';

/** Past this size the ledger is written anew with the newest notices (their keys are what stops a notice being sent twice). */
export const LEDGER_MAX_BYTES = 1024 * 1024;

export interface Unsent {
  readonly notice: Notice;
  readonly target: number;
}

/**
 * `run/notifications.jsonl`: each notice found, with the webhooks it goes to, then one line per
 * webhook saying how its sending ended. A notice is written before it is sent, so a restart
 * neither sends it twice nor forgets one that was still being sent (those are sent again). A
 * line that does not parse (a torn tail) is skipped and logged; the file is never trusted for
 * more than the keys it names.
 */
export class NoticeLedger {
  private readonly known = new Set<string>();
  private bytes = 0;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {}

  /** Reads the ledger: the keys already found, and each notice whose sending to a webhook did not end. */
  load(): Unsent[] {
    const lines = this.read();
    const ended = new Set(lines.filter((line) => line.type === 'sent').map((line) => `${line.key}\u0000${line.target}`));
    const unsent: Unsent[] = [];
    for (const line of lines) {
      if (line.type !== 'notice') continue;
      this.known.add(line.notice.key);
      for (const target of line.targets) if (!ended.has(`${line.notice.key}\u0000${target}`)) unsent.push({ notice: line.notice, target });
    }
    return unsent;
  }

  has(key: string): boolean {
    return this.known.has(key);
  }

  found(notice: Notice, targets: readonly number[]): void {
    this.known.add(notice.key);
    this.append({ type: 'notice', notice, targets: [...targets] });
  }

  ended(key: string, target: number, outcome: { ok: boolean; attempts: number; error?: string | undefined }, at: string): void {
    this.append({ type: 'sent', key, target, at, ok: outcome.ok, attempts: outcome.attempts, ...(outcome.error ? { error: outcome.error } : {}) });
  }

  private append(line: NoticeLine): void {
    const text = `${JSON.stringify(line)}\n`;
    try {
      if (this.bytes + text.length > LEDGER_MAX_BYTES) this.compact();
      appendRecordSync(this.file, text, { durable: true });
      this.bytes += Buffer.byteLength(text);
    } catch (error) {
      // A full disk: the notice is still sent (at worst twice after a restart), and the log says so.
      this.logger.warn({ err: error, file: this.file }, 'could not write the notifications ledger; sending anyway');
    }
  }

  /** Keeps the newest notices (and how their sending ended) that fit in half the size, written whole (temp + rename). */
  private compact(): void {
    const lines = this.read();
    const sizes = new Map<string, number>();
    for (const line of lines) {
      const key = line.type === 'notice' ? line.notice.key : line.key;
      sizes.set(key, (sizes.get(key) ?? 0) + JSON.stringify(line).length + 1);
    }
    const keep = new Set<string>();
    let room = LEDGER_MAX_BYTES / 2;
    const notices = lines.filter((line) => line.type === 'notice');
    for (let i = notices.length - 1; i >= 0; i--) {
      const key = notices[i]!.notice.key;
      room -= sizes.get(key) ?? 0;
      if (room < 0) break;
      keep.add(key);
    }
    const kept = lines.filter((line) => keep.has(line.type === 'notice' ? line.notice.key : line.key));
    const text = kept.map((line) => `${JSON.stringify(line)}\n`).join('');
    writeFileAtomicSync(this.file, text);
    this.bytes = Buffer.byteLength(text);
  }

  private read(): NoticeLine[] {
    const read = readBoundedText(this.file, 4 * LEDGER_MAX_BYTES);
    if (read.kind === 'missing') return [];
    if (read.kind === 'unusable') {
      this.logger.warn({ file: this.file, why: read.reason }, 'the notifications ledger cannot be read; notices already sent may be sent again');
      return [];
    }
    this.bytes = Buffer.byteLength(read.text);
    const lines: NoticeLine[] = [];
    let skipped = 0;
    for (const raw of read.text.split('\n')) {
      if (raw.trim() === '') continue;
      try {
        const parsed = noticeLineSchema.safeParse(JSON.parse(raw));
        if (parsed.success) lines.push(parsed.data);
        else skipped++;
      } catch {
        skipped++;
      }
    }
    if (skipped > 0) this.logger.warn({ file: this.file, skipped }, 'lines of the notifications ledger that are not valid were skipped');
    return lines;
  }
}
