import fs from 'node:fs';
import path from 'node:path';
import type { TaskBoard } from '../contracts/task-board.js';
import type { Task } from '../contracts/task.js';
import type { StatePaths } from '../paths.js';
import { lastLines } from '../logs/read-backwards.js';
import { parseLogLine, type LogEntry } from '../logs/log-entry.js';
import { DEFAULT_ROTATION, rotatedFiles } from '../fs/rotating-file.js';
import { git } from '../worktree/git.js';
import { worktreePath } from '../worktree/worktrees.js';
import { taskTurns, type Turn } from './ui-turns.js';

/** The most a task's page shows of its log and of its diff: a page, not an archive (teamd logs and git have the rest). */
const LOG_LINES = 400;
const DIFF_CHARS = 512 * 1024;

export interface TaskPage {
  readonly task: Task;
  /** The task's conversation, from its teammate's session file: model turns, tool calls and their results. */
  readonly turns: readonly Turn[];
  /** Why some or all of the conversation is not shown, if it is not. */
  readonly turnsNote: string | null;
  /** The log lines about this task, of every teammate and the daemon, oldest first. */
  readonly log: readonly Pick<LogEntry, 'time' | 'level' | 'who' | 'msg' | 'fields'>[];
  /** What the task changed: its worktree branch against where it started, or its worktree's uncommitted changes while it runs. */
  readonly diff: { readonly text: string; readonly cut: boolean; readonly of: string } | null;
  /** A merge button: the task is done and its branch is not merged yet. */
  readonly mergeable: boolean;
}

/** Everything a task's page shows, read when the page is opened. */
export async function readTaskPage(board: TaskBoard, paths: StatePaths, id: number): Promise<TaskPage> {
  const task = await board.get(id);
  const worktree = task.worktree;
  const conversation = taskTurns(paths, task.owner, id);
  return {
    task,
    turns: conversation.turns,
    turnsNote: conversation.note,
    log: taskLog(paths, id),
    diff: worktree ? taskDiff(paths, task) : null,
    mergeable: worktree !== undefined && (worktree.state === 'committed' || worktree.state === 'needs-merge'),
  };
}

function taskLog(paths: StatePaths, id: number): TaskPage['log'] {
  let names: string[] = [];
  try {
    names = fs
      .readdirSync(paths.logsDir)
      .filter((file) => file.endsWith('.log') && file !== 'cli.log' && file !== 'daemon-start.log')
      .map((file) => path.basename(file, '.log'));
  } catch {
    return [];
  }
  const marker = `"taskId":${id}`;
  const entries = names.flatMap((name) =>
    lastLines(rotatedFiles(paths.logFile(name), DEFAULT_ROTATION.keep), LOG_LINES, (line) => (line.includes(marker) ? 'keep' : 'skip'))
      .map(parseLogLine)
      .filter((entry): entry is LogEntry => entry !== null && entry.taskId === id),
  );
  return entries
    .sort((a, b) => (a.time ?? 0) - (b.time ?? 0))
    .slice(-LOG_LINES)
    .map(({ time, level, who, msg, fields }) => ({ time, level, who, msg, fields }));
}

function taskDiff(paths: StatePaths, task: Task): TaskPage['diff'] {
  const worktree = task.worktree!;
  const workspace = path.dirname(paths.root);
  let result;
  let of: string;
  if (worktree.state === 'active') {
    const where = worktreePath(paths, worktree.name);
    if (!fs.existsSync(where)) return null;
    result = git(where, ['diff', '--no-color', 'HEAD']);
    of = `uncommitted changes in ${where}`;
  } else if (worktree.state === 'pending' || worktree.state === 'removed') {
    return null;
  } else {
    result = git(workspace, ['diff', '--no-color', `${worktree.base}...${worktree.branch}`]);
    of = `${worktree.branch} against ${worktree.base}`;
  }
  if (result.code !== 0) return { text: result.stderr.trim() || `git diff failed (exit ${result.code})`, cut: false, of };
  return { text: result.stdout.slice(0, DIFF_CHARS), cut: result.stdout.length > DIFF_CHARS, of };
}
