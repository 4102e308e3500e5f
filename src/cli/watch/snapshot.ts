import fs from 'node:fs';
import type { Board, TaskView } from '../../board/board.js';
import { readLiveDaemon, type PidInfo } from '../../daemon/pid-file.js';
import { readInboxFrom } from '../../inbox/inbox-file.js';
import type { Message } from '../../inbox/message.js';
import type { StatePaths } from '../../paths.js';
import { readConfig, type Member } from '../../roster/roster.js';
import type { TodoItem } from '../../agent/todos.js';
import { readPublishedTodos } from '../../teammate/published-todos.js';

export interface Snapshot {
  readonly daemon: PidInfo | null;
  readonly members: Member[];
  /** Why the roster cannot be read (a corrupt config.json); the rest is still shown. */
  readonly rosterError: string | null;
  readonly tasks: TaskView[];
  readonly problems: number;
  readonly messages: Message[];
  /** Each working teammate's plan (todo_write), shown beside its task. */
  readonly todos: ReadonlyMap<string, readonly TodoItem[]>;
}

const TAIL_BYTES = 64 * 1024;

/** Everything the watch view shows, read from the files (works with the daemon down). */
export function takeSnapshot(paths: StatePaths, board: Board, messageCount: number): Snapshot {
  const listing = board.list();
  let members: Member[] = [];
  let rosterError: string | null = null;
  try {
    members = readConfig(paths.config).members;
  } catch (error) {
    rosterError = error instanceof Error ? error.message : String(error);
  }
  return {
    daemon: readLiveDaemon(paths),
    members,
    rosterError,
    tasks: listing.tasks,
    problems: listing.problems.length,
    messages: latestMessages(paths, messageCount),
    todos: new Map(members.filter((m) => m.task).map((m) => [m.name, readPublishedTodos(paths, m.name)])),
  };
}

/** The newest messages across every inbox, reading only the tail of each file. */
function latestMessages(paths: StatePaths, count: number): Message[] {
  let names: string[];
  try {
    names = fs.readdirSync(paths.inboxDir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const all: Message[] = [];
  for (const name of names) {
    const file = `${paths.inboxDir}/${name}`;
    const size = fs.statSync(file).size;
    const read = readInboxFrom(file, Math.max(0, size - TAIL_BYTES));
    all.push(...read.messages.map((m) => m.message));
  }
  return all.sort((a, b) => a.timestamp.localeCompare(b.timestamp)).slice(-count);
}
