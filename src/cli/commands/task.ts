import path from 'node:path';
import { Command, Option } from 'commander';
import { currentHead, git, repoRoot } from '../../worktree/git.js';
import { teamWorktree } from '../../worktree/team-setting.js';
import { withCommonOptions as common, type CommonOptions as Common } from './common.js';
import { TeamdError } from '../../errors.js';
import { openContext } from '../context.js';
import { formatChange, formatTask, formatTaskTable, printJson, printProblems, type Io } from '../output.js';
import { parseMemberName, parseNonNegativeInt, parseStatus, parseTaskId, parseTaskIdList } from '../parsers.js';
import type { Task } from '../../contracts/task.js';

function report(io: Io, options: Common, task: Task, verb: string): void {
  if (options.json) printJson(io, task);
  else io.out(formatChange(task, verb));
}

export function taskCommand(io: Io): Command {
  const task = new Command('task').description('the shared task board: add, list, claim and finish tasks');

  common(task.command('add').description('add a pending task to the board'))
    .argument('<subject>', 'one-line summary of the task')
    .option('--description <text>', "what to do; '-' reads it from standard input; a ```sh block lists commands the offline model runs")
    .option('--blocked-by <ids>', 'comma-separated ids of tasks that must complete first', parseTaskIdList)
    .option('--role <role>', 'the role it is meant for: idle teammates of that role are woken for it first')
    .option('--worktree [name]', 'work it in its own git worktree (name: default <id>-<subject>), made when it is claimed')
    .option('--no-worktree', 'work it in the workspace even when the team setting "worktrees" is "always"')
    .option('--base <ref>', "with --worktree: the commit or branch it starts from (default: the workspace's current HEAD)")
    .action(
      async (subject: string, options: Common & { description?: string; blockedBy?: number[]; role?: string; worktree?: string | boolean; base?: string }) => {
        const description = options.description === '-' ? await io.readStdin() : options.description;
        const { board, paths } = await openContext(io, options.dir, 'write');
        const workspace = path.dirname(paths.root);
        // The team may want a worktree for every task (settings.worktrees "always"), where the workspace is a git repository.
        const wanted = options.worktree ?? (teamWorktree(paths.root) ? true : undefined);
        if (options.base !== undefined && (wanted === undefined || wanted === false)) throw new TeamdError('USAGE', '--base goes with --worktree');
        const worktree = wanted === undefined || wanted === false ? undefined : worktreeSpec(workspace, wanted, options.base);
        const created = await board.add({ subject, description, blockedBy: options.blockedBy, role: options.role, worktree });
        report(io, options, created, 'added');
      },
    );

  common(task.command('list').description('list tasks in id order (ready, waiting and stuck are computed now)'))
    .option('--status <status>', 'only tasks with this status', parseStatus)
    .option('--owner <name>', 'only tasks owned by this teammate', parseMemberName)
    .option('--ready', 'only tasks that can be claimed now')
    .action(async (options: Common & { status?: Task['status']; owner?: string; ready?: boolean }) => {
      const { board } = await openContext(io, options.dir, 'read');
      const listing = await board.list({ status: options.status, owner: options.owner, ready: options.ready ? true : undefined });
      printProblems(io, listing);
      if (options.json) printJson(io, listing.tasks);
      else io.out(formatTaskTable(listing.tasks));
    });

  common(task.command('show').description('show one task in full'))
    .argument('<id>', 'task id', parseTaskId)
    .action(async (id: number, options: Common) => {
      const { board } = await openContext(io, options.dir, 'read');
      const view = await board.get(id);
      if (options.json) printJson(io, view);
      else io.out(formatTask(view));
    });

  common(task.command('claim').description('claim a ready task for a teammate (exit 3 if --next finds none)'))
    .argument('[id]', 'task id to claim', parseTaskId)
    .option('--next', 'claim the lowest-id ready task')
    .requiredOption('--owner <name>', 'who claims it', parseMemberName)
    .action(async (id: number | undefined, options: Common & { next?: boolean; owner: string }) => {
      if ((id === undefined) === !options.next) throw new TeamdError('USAGE', 'give either a task id or --next, not both and not neither');
      const { board } = await openContext(io, options.dir, 'write');
      const claimed = id === undefined ? await board.claimNext(options.owner) : await board.claim(id, options.owner);
      if (!claimed) throw new TeamdError('NOTHING_READY', 'no task is ready to claim (all are taken, done, or waiting on blockers)');
      report(io, options, claimed, 'claimed');
    });

  const ownerOption = (): Option => new Option('--owner <name>', 'act as this teammate: the task must be theirs').argParser(parseMemberName);
  const claimOption = (): Option =>
    new Option('--claim <n>', 'fencing token from the claim: refused if the task was claimed again since').argParser(parseNonNegativeInt);

  common(task.command('done').description('mark a task completed'))
    .argument('<id>', 'task id', parseTaskId)
    .addOption(ownerOption())
    .addOption(claimOption())
    .option('--result <text>', 'what was done (kept on the task)')
    .action(async (id: number, options: Common & { owner?: string; claim?: number; result?: string }) => {
      const { board } = await openContext(io, options.dir, 'write');
      report(io, options, await board.complete(id, { owner: options.owner, claim: options.claim }, options.result ?? null), 'completed');
    });

  common(task.command('fail').description('mark a task failed, with the reason'))
    .argument('<id>', 'task id', parseTaskId)
    .addOption(ownerOption())
    .addOption(claimOption())
    .requiredOption('--reason <text>', 'why it failed (kept on the task)')
    .action(async (id: number, options: Common & { owner?: string; claim?: number; reason: string }) => {
      const { board } = await openContext(io, options.dir, 'write');
      report(io, options, await board.fail(id, { owner: options.owner, claim: options.claim }, options.reason), 'failed');
    });

  common(task.command('cancel').description('cancel a pending or in-progress task'))
    .argument('<id>', 'task id', parseTaskId)
    .action(async (id: number, options: Common) => {
      const { board } = await openContext(io, options.dir, 'write');
      report(io, options, await board.cancel(id), 'cancelled');
    });

  common(task.command('release').description('put a task back on the board: pending, owner cleared (also retries a failed or cancelled task)'))
    .argument('<id>', 'task id', parseTaskId)
    .addOption(ownerOption())
    .addOption(claimOption())
    .action(async (id: number, options: Common & { owner?: string; claim?: number }) => {
      const { board } = await openContext(io, options.dir, 'write');
      report(io, options, await board.release(id, { owner: options.owner, claim: options.claim }), 'released');
    });

  common(task.command('block').description("replace a pending task's blockers (unknown ids and cycles are refused)"))
    .argument('<id>', 'task id', parseTaskId)
    .requiredOption('--by <ids>', 'comma-separated ids that must complete first; "none" clears them', (raw: string) =>
      raw.trim() === 'none' ? [] : parseTaskIdList(raw),
    )
    .action(async (id: number, options: Common & { by: number[] }) => {
      const { board } = await openContext(io, options.dir, 'write');
      report(io, options, await board.setBlockers(id, options.by), 'blockers set');
    });

  return task;
}

/** A worktree for a new task: the workspace must be a git repository, and the base a commit it has. */
function worktreeSpec(workspace: string, name: string | true, base: string | undefined): { name?: string; base: string } {
  if (repoRoot(workspace) === null)
    throw new TeamdError(
      'USAGE',
      `${workspace} is not a git repository: --worktree needs one (git init there), or leave --worktree out to work in the workspace`,
    );
  const from = base ?? currentHead(workspace);
  if (git(workspace, ['rev-parse', '--verify', '--quiet', `${from}^{commit}`]).code !== 0)
    throw new TeamdError(
      'USAGE',
      `--base ${JSON.stringify(from)} is not a commit or branch of ${workspace}${base === undefined ? ' (make a first commit)' : ''}`,
    );
  return { ...(name === true ? {} : { name }), base: from };
}
