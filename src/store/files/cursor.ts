import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { readBoundedText } from '../../fs/read-text.js';
import type { Logger } from '../../log/logger.js';
import { isoTime } from '../../platform/iso-time.js';
import type { Cursor } from '../../contracts/cursor.js';
import { START_CURSOR, cursorSchema } from '../../contracts/cursor.js';

/** A cursor is a few dozen bytes: a file past this is unreadable, not read. */
const MAX_CURSOR_BYTES = 1024 * 1024;

/**
 * How far a consumer has handled its inbox. A missing or unreadable cursor starts from the
 * beginning: at-least-once, with the consumer dropping ids it has already handled.
 */
export class CursorStore {
  constructor(
    readonly file: string,
    private readonly logger: Logger,
  ) {}

  read(): Cursor {
    const read = readBoundedText(this.file, MAX_CURSOR_BYTES);
    if (read.kind === 'missing') return START_CURSOR;
    if (read.kind === 'text') {
      try {
        const parsed = cursorSchema.safeParse(JSON.parse(read.text));
        if (parsed.success) return parsed.data;
      } catch {
        // fall through to the warning below
      }
    }
    this.logger.warn({ file: this.file }, 'cursor unreadable; re-reading the inbox from the start (handled ids are dropped)');
    return START_CURSOR;
  }

  write(cursor: Cursor, now: Date): void {
    writeFileAtomicSync(this.file, `${JSON.stringify({ ...cursor, updatedAt: isoTime(now) })}\n`);
  }
}
