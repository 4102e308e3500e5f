import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import type { TaskBoard } from '../../contracts/task-board.js';
import type { StatePaths } from '../../paths.js';
import { gitWorktrees, recordWorktreeEvent, removeWorktree, worktreePath } from '../../worktree/worktrees.js';
import { mergeTask, taskWithWorktree } from '../../worktree/merge-task.js';
import { dirtyPaths } from '../../worktree/git.js';
import { openContext } from '../context.js';
import { printJson, type Io } from '../output.js';
import { parseTaskId } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export function mergeCommand(io: Io): Command {
  return withCommonOptions(new Command('merge').description("merge a task's worktree branch into the branch it started from (fast-forward when possible)"))
    .argument('<task>', 'task id', parseTaskId)
    .action(async (id: number, options: CommonOptions) => {
      const { board, paths } = await openContext(io, options.dir, 'write');
      const merged = await mergeTask(board, paths, id);
      if (options.json) printJson(io, merged);
      else io.out(`merged ${merged.branch} into ${merged.into} (${merged.fastForward ? 'fast-forward' : 'merge commit'} ${merged.commit.slice(0, 12)})\n`);
    });
}

export function worktreeCommand(io: Io): Command {
  const command = new Command('worktree').description("tasks' git worktrees: list, keep, remove");
  withCommonOptions(command.command('list').description('every task worktree: its task, branch, state, and whether it has uncommitted changes')).action(
    async (options: CommonOptions) => {
      const { board, paths } = await openContext(io, options.dir, 'read');
      const rows = await worktreeRows(board, paths);
      if (options.json) return printJson(io, rows);
      if (rows.length === 0) return io.out('no task worktrees\n');
      for (const row of rows)
        io.out(
          `task ${row.task}  ${row.state.padEnd(11)} ${row.branch}  ${row.exists ? (row.dirty ? 'uncommitted changes' : 'clean') : 'no folder'}  ${row.path}\n`,
        );
    },
  );
  withCommonOptions(command.command('keep').description('keep a worktree after its task (recorded in the events log)'))
    .argument('<task>', 'task id', parseTaskId)
    .action(async (id: number, options: CommonOptions) => {
      const { board, paths } = await openContext(io, options.dir, 'write');
      const task = await taskWithWorktree(board, id);
      recordWorktreeEvent(paths, 'kept', { taskId: id, branch: task.worktree.branch });
      io.out(`keeping ${worktreePath(paths, task.worktree.name)}\n`);
    });
  withCommonOptions(command.command('remove').description("remove a task's worktree folder (its branch stays); refuses uncommitted changes without --force"))
    .argument('<task>', 'task id', parseTaskId)
    .option('--force', 'remove it even with uncommitted changes')
    .action(async (id: number, options: CommonOptions & { force?: boolean }) => {
      const { board, paths } = await openContext(io, options.dir, 'write');
      const task = await taskWithWorktree(board, id);
      const where = worktreePath(paths, task.worktree.name);
      removeWorktree(path.dirname(paths.root), where, options.force === true);
      await board.setWorktree(id, (w) => ({ ...w, state: w.state === 'merged' ? 'merged' : 'removed' }));
      recordWorktreeEvent(paths, 'removed', { taskId: id, branch: task.worktree.branch, forced: options.force === true });
      io.out(`removed ${where} (the branch ${task.worktree.branch} stays)\n`);
    });
  return command;
}

async function worktreeRows(board: TaskBoard, paths: StatePaths) {
  const workspace = path.dirname(paths.root);
  const known = (() => {
    try {
      return gitWorktrees(workspace);
    } catch {
      return new Map<string, string | null>();
    }
  })();
  return (await board.list()).tasks
    .filter((task) => task.worktree)
    .map((task) => {
      const where = worktreePath(paths, task.worktree!.name);
      const exists = fs.existsSync(where) && known.has(path.resolve(where));
      return {
        task: task.id,
        branch: task.worktree!.branch,
        state: task.worktree!.state,
        path: where,
        exists,
        dirty: exists ? dirtyPaths(where).length > 0 : false,
      };
    });
}
