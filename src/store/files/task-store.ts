import fs from 'node:fs';
import path from 'node:path';
import { isCommitted, isNodeError, TeamdError } from '../../errors.js';
import { writeFileAtomicSync } from '../../fs/atomic-write.js';
import { readBoundedText, type BoundedRead } from '../../fs/read-text.js';
import { TASK_FILE_PATTERN, type StatePaths } from '../../paths.js';
import { isTerminal, MAX_TASK_FILE_BYTES, taskSchema, type Task } from '../../contracts/task.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { DoneIndex } from './done-index.js';

export type TaskSummary = Pick<Task, 'status' | 'owner' | 'blockedBy'> & { readonly role?: string | null | undefined };

export interface PeekedVersion {
  readonly stat: fs.Stats;
  /** Undefined when the file is not a valid task; `problem` then says why. */
  readonly summary: TaskSummary | undefined;
  readonly problem?: string;
}

export type TaskRead =
  | { readonly kind: 'ok'; readonly task: Task; readonly raw: string; readonly file: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'corrupt'; readonly file: string; readonly reason: string; readonly raw: string };

/**
 * Reads and writes of task files. A live task (pending, in progress) is `tasks/task_<id>.json`;
 * a finished one (completed, failed, cancelled) is moved to `tasks/done/task_<id>.json`, so the
 * folder claimers list and scan holds only what can still change hands. Every read by id looks
 * in both places.
 *
 * A move is a rename of the new version into its folder, then the removal of the old one: a
 * writer killed in between leaves both, and the one with the higher `rev` is the task (the next
 * locked write removes the other). Writes are whole-file renames, so a read without the lock sees
 * either the old or the new file, never a mix: lock-free reads are safe for listing and skipping.
 */
export class TaskStore {
  private doneDirReady = false;
  constructor(
    private readonly paths: StatePaths,
    readonly doneIndex: DoneIndex = new DoneIndex(paths.doneIndex),
  ) {}

  ensureDir(): void {
    ensurePrivateDir(this.paths.tasksDir);
  }

  /** Live task ids (pending and in progress, plus any finished task not moved yet), ascending. */
  listIds(): number[] {
    return listTaskIds(this.paths.tasksDir);
  }

  /** Finished task ids (the done folder), ascending. */
  listDoneIds(): number[] {
    return listTaskIds(this.paths.doneDir);
  }

  /** Every task id, live and finished, ascending. */
  listAllIds(): number[] {
    const live = this.listIds();
    const done = this.listDoneIds();
    if (done.length === 0) return live;
    return [...new Set([...live, ...done])].sort((a, b) => a - b);
  }

  exists(id: number): boolean {
    return fs.existsSync(this.paths.taskFile(id)) || fs.existsSync(this.paths.doneTaskFile(id));
  }

  /** The raw text of the version `read` would return. */
  readRaw(id: number): string | null {
    const read = this.read(id);
    return read.kind === 'missing' ? null : read.raw;
  }

  read(id: number): TaskRead {
    const liveFile = this.paths.taskFile(id);
    const doneFile = this.paths.doneTaskFile(id);
    const live = readBoundedText(liveFile, MAX_TASK_FILE_BYTES);
    const done = readBoundedText(doneFile, MAX_TASK_FILE_BYTES);
    if (live.kind === 'missing') return done.kind === 'missing' ? { kind: 'missing' } : taskFrom(id, done, doneFile);
    if (done.kind === 'missing') return taskFrom(id, live, liveFile);
    return newer(taskFrom(id, live, liveFile), taskFrom(id, done, doneFile));
  }

  /**
   * The fields readiness needs, validated with the same full schema as the locked read (so a
   * task the scanner offers is one the claim can use), and the identity of exactly the version
   * read (fstat of the open file). Only the live folder is looked at: that is what claimers scan.
   * Null when the file is gone; the summary is undefined, with the reason, when the file is not a valid task.
   */
  peekVersion(id: number): PeekedVersion | null {
    const file = this.paths.taskFile(id);
    const bounded = readBoundedText(file, MAX_TASK_FILE_BYTES);
    if (bounded.kind === 'missing') return null;
    const read = taskFrom(id, bounded, file);
    if (read.kind === 'ok') {
      const { status, owner, blockedBy, role } = read.task;
      return { stat: bounded.stat, summary: { status, owner, blockedBy, role } };
    }
    return { stat: bounded.stat, summary: undefined, problem: read.kind === 'corrupt' ? read.reason : 'gone' };
  }

  /** The task, or a TASK_NOT_FOUND / TASK_CORRUPT error that says what to do. */
  require(id: number): { task: Task; raw: string; file: string } {
    const read = this.read(id);
    switch (read.kind) {
      case 'ok':
        return read;
      case 'missing':
        throw new TeamdError('TASK_NOT_FOUND', `no task ${id} in ${this.paths.tasksDir} (see: teamd task list)`, { details: { id } });
      case 'corrupt':
        throw corruptError(id, read.file, read.reason);
    }
  }

  /**
   * Replaces the task's file whole, in the folder its status belongs in, then removes the copy
   * in the other folder (a move); `beforeRename` is a last check that may still refuse (by throwing).
   * A writtenNotSynced error (errors.ts) comes after the move is complete: the task is written.
   * Callers hold the task's lock.
   */
  write(task: Task, beforeRename?: () => void): void {
    const finished = isTerminal(task.status);
    if (finished && !this.doneDirReady) {
      ensurePrivateDir(this.paths.doneDir);
      this.doneDirReady = true;
    }
    const [target, other] = finished
      ? [this.paths.doneTaskFile(task.id), this.paths.taskFile(task.id)]
      : [this.paths.taskFile(task.id), this.paths.doneTaskFile(task.id)];
    let unsynced: Error | null = null;
    try {
      writeFileAtomicSync(target, `${JSON.stringify(task, null, 2)}\n`, beforeRename);
    } catch (error) {
      if (!isCommitted(error)) throw error;
      // In place, only not synced: the move is finished as for any write, then the caller hears of it.
      unsynced = error;
    }
    removeIfThere(other);
    if (finished) this.doneIndex.record(task.id, task.status, target);
    if (unsynced !== null) throw unsynced;
  }

  /** Removes the losing copy of a task left in both folders by a writer that died mid-move. Callers hold the task's lock. */
  dropStaleCopy(id: number, kept: string): void {
    const other = kept === this.paths.taskFile(id) ? this.paths.doneTaskFile(id) : this.paths.taskFile(id);
    removeIfThere(other);
  }
}

/** Of two copies of one task, the valid one with the higher revision (ties: the finished one, written last). */
function newer(live: TaskRead, done: TaskRead): TaskRead {
  if (live.kind !== 'ok') return done.kind === 'ok' ? done : live;
  if (done.kind !== 'ok') return live;
  return live.task.rev > done.task.rev ? live : done;
}

function removeIfThere(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if (!isNodeError(error, 'ENOENT')) throw new TeamdError('IO', `cannot remove ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function listTaskIds(dir: string): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if (isNodeError(error, 'ENOENT')) return [];
    throw new TeamdError('IO', `cannot list ${dir}: ${(error as Error).message}`, { cause: error });
  }
  const ids: number[] = [];
  for (const name of names) {
    const match = TASK_FILE_PATTERN.exec(name);
    if (match) ids.push(Number(match[1]));
  }
  return ids.sort((a, b) => a - b);
}

export function corruptError(id: number, file: string, reason: string): TeamdError {
  return new TeamdError(
    'TASK_CORRUPT',
    `task file ${file} is not a valid task (${reason}); it was left untouched: fix it by hand, or move it out of ${path.dirname(file)}`,
    { details: { id, file } },
  );
}

export function parseTask(id: number, raw: string, file: string): TaskRead {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { kind: 'corrupt', file, raw, reason: `not JSON: ${(error as Error).message}` };
  }
  const parsed = taskSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    return { kind: 'corrupt', file, raw, reason: `${where}${issue?.message ?? 'invalid'}` };
  }
  if (parsed.data.id !== id) {
    return { kind: 'corrupt', file, raw, reason: `it says id ${parsed.data.id} but its file name says ${id}` };
  }
  return { kind: 'ok', task: parsed.data, raw, file };
}

/** A task from a bounded read of its file: a file too big or not a file is corrupt, unread. */
function taskFrom(id: number, read: Exclude<BoundedRead, { kind: 'missing' }>, file: string): TaskRead {
  return read.kind === 'text' ? parseTask(id, read.text, file) : { kind: 'corrupt', file, raw: '', reason: read.reason };
}
