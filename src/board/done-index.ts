import fs from 'node:fs';
import { TASK_STATUSES, type TaskStatus } from './task.js';
import * as z from '../zod-mini.js';

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
    /** ~270,000 lines. */
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  /** After `taskFile` was written with this status (the task's lock held). Never throws. */
  record(id: number, status: TaskStatus, taskFile: string): void {
    try {
      const { ino, size, mtimeMs, ctimeMs } = fs.statSync(taskFile);
      fs.appendFileSync(this.file, `${JSON.stringify({ id, status, ino, size, mtimeMs, ctimeMs })}\n`);
    } catch {
      // The index is only a hint: a missing line means the file is read instead.
    }
  }

  /** The last valid line for each task; empty when there is no index, or one past `maxBytes`. */
  read(): Map<number, DoneEntry> {
    const entries = new Map<number, DoneEntry>();
    let text: string;
    try {
      // Past this, reading it would cost more than it saves (and memory): the files are read instead.
      if (fs.statSync(this.file).size > this.maxBytes) return entries;
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return entries;
    }
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
}

/** Whether the file is still the version the entry recorded. */
export function sameVersion(entry: DoneEntry, stat: Identity): boolean {
  return entry.ino === stat.ino && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs && entry.ctimeMs === stat.ctimeMs;
}
