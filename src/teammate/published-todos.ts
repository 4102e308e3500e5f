import path from 'node:path';
import * as z from '../contracts/zod-mini.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { todoItemSchema, type TodoItem } from '../contracts/todos.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readTextIfExists } from '../fs/read-text.js';
import type { StatePaths } from '../paths.js';
import { isoTime } from '../platform/iso-time.js';

const publishedSchema = z.object({ items: z.array(todoItemSchema), updatedAt: z.iso.datetime({ offset: true }) });

/** `sessions/<name>.todos.json`: the teammate's current plan, written whole for teamd status. */
export function publishTodos(paths: StatePaths, name: string, items: readonly TodoItem[], now = new Date()): void {
  ensurePrivateDir(path.dirname(paths.todoFile(name)));
  writeFileAtomicSync(paths.todoFile(name), `${JSON.stringify({ items, updatedAt: isoTime(now) })}\n`);
}

/** The plan a teammate last published; none (absent or unreadable: it is only a view) is an empty list. */
export function readPublishedTodos(paths: StatePaths, name: string): TodoItem[] {
  try {
    const raw = readTextIfExists(paths.todoFile(name));
    if (raw === null) return [];
    const parsed = publishedSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data.items : [];
  } catch {
    return [];
  }
}
