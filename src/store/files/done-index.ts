import fs from 'node:fs';
import { appendRecordSync } from '../../fs/append-record.js';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { TASK_STATUSES, type TaskStatus } from '../../contracts/task.js';
import * as z from '../../contracts/zod-mini.js';
import { readBoundedText } from '../../fs/read-text.js';

/** One line of the index: a finished task's status, and the identity of the file it was written to. */
const entrySchema = z.object({
  id: z.number().check(z.int(), z.positive()),
  status: z.enum(TASK_STATUSES),
  ino: z.number(),
  size: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z.number(),
});
export type DoneEntry = z.infer<typeof entrySchema>;

type Identity = Pick<fs.Stats, 'ino' | 'size' | 'mtimeMs' | 'ctimeMs'>;

/** Past this (~270,000 lines) the index is not read: the files are. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

/**
 * `tasks/done/.index.jsonl`: a line appended each time a finished task is written to the done
 * folder, with its status and the identity of the file (inode, size, times). It lets `teamd status`
 * count a board of thousands of finished tasks with a stat of each file instead of a read and a
 * parse: a file whose identity is still the one recorded is the version recorded.
 *
 * It is a hint, never the truth. A file with no line (written before the index existed, or by a
 * writer killed between its rename and its append), or whose identity changed (edited by hand),
 * is read as before; a line for a task no longer in the folder is ignored; a torn or invalid line
 * is skipped; the last line for a task wins. A write that cannot append (a full disk) leaves the
 * task written and the index short, never the task unwritten. Appends of one short line each are
 * whole (O_APPEND), so writers of different tasks need no common lock.
 */
export class DoneIndex {
  constructor(
    private readonly file: string,
    private readonly maxBytes = DEFAULT_MAX_BYTES,
  ) {}

  /** After `taskFile` was written with this status (the task's lock held). Never throws. */
  record(id: number, status: TaskStatus, taskFile: string): void {
    try {
      this.recordVersion(id, status, fs.statSync(taskFile));
    } catch {
      // The index is only a hint: a missing line means the file is read instead.
    }
  }

  /** A line for the version of a task's file with this identity, read with this status. Never throws. */
  recordVersion(id: number, status: TaskStatus, { ino, size, mtimeMs, ctimeMs }: Identity): void {
    try {
      appendRecordSync(this.file, `${JSON.stringify({ id, status, ino, size, mtimeMs, ctimeMs })}\n`, { durable: false });
    } catch {
      // As above.
    }
  }

  /** The last valid line for each task; empty when there is no index, or one past `maxBytes`. */
  read(): Map<number, DoneEntry> {
    try {
      // Past maxBytes, reading it would cost more than it saves (and memory): the files are read instead.
      const read = readBoundedText(this.file, this.maxBytes);
      return read.kind === 'text' ? parseLines(read.text) : new Map<number, DoneEntry>();
    } catch {
      return new Map();
    }
  }

  /**
   * Rewrites the index when it holds more than twice as many lines as there are finished tasks (a
   * task finished again, or given another try, leaves a line each time): the last line of each task
   * still in the folder whose file is still that version; the files of the others would be read
   * anyway. One past `maxBytes` is started again empty. Written whole (temp + rename); a line
   * another process appends to the old file meanwhile is lost, and that task is read until it is
   * written again. `listDone` (the done folder's task files by id) is called only when the index
   * holds more than a small start. The daemon runs this at start. Returns the lines dropped; never throws.
   */
  compact(listDone: () => ReadonlyMap<number, string>): number {
    try {
      const read = readBoundedText(this.file, this.maxBytes);
      if (read.kind === 'missing' || read.stat.size === 0) return 0;
      const text = read.kind === 'text' ? read.text : null;
      const lines = text === null ? Infinity : text.split('\n').filter((line) => line.length > 0).length;
      // A small index is left alone without listing the done folder.
      if (lines <= COMPACT_SLACK) return 0;
      const doneFiles = listDone();
      if (lines <= 2 * doneFiles.size + COMPACT_SLACK) return 0;
      const entries = text === null ? new Map<number, DoneEntry>() : parseLines(text);
      const kept: string[] = [];
      for (const [id, taskFile] of doneFiles) {
        const entry = entries.get(id);
        const stat = entry && fs.statSync(taskFile, { throwIfNoEntry: false });
        if (entry && stat && sameVersion(entry, stat)) kept.push(`${JSON.stringify(entry)}\n`);
      }
      writeFileAtomicSync(this.file, kept.join(''));
      return text === null ? 0 : lines - kept.length;
    } catch {
      return 0;
    }
  }
}

/** The last valid line for each task. */
function parseLines(text: string): Map<number, DoneEntry> {
  const entries = new Map<number, DoneEntry>();
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = entrySchema.safeParse(json);
    if (parsed.success) entries.set(parsed.data.id, parsed.data);
  }
  return entries;
}

/** Lines the index may hold beyond two per finished task before `compact` rewrites it. */
const COMPACT_SLACK = 1_000;

/** Whether the file is still the version the entry recorded. */
export function sameVersion(entry: Identity, stat: Identity): boolean {
  return entry.ino === stat.ino && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs && entry.ctimeMs === stat.ctimeMs;
}
