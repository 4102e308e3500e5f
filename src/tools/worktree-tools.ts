import path from 'node:path';
import * as z from 'zod';
import { taskIdSchema } from '../contracts/task.js';
import { statePaths } from '../paths.js';
import { currentHead, repoRoot } from '../worktree/git.js';
import { recordWorktreeEvent, removeWorktree, worktreePath } from '../worktree/worktrees.js';
import { defineTool, toolError, type ToolContext } from '../contracts/tool.js';
import { expected } from './team-tools.js';

const workspaceOf = (ctx: ToolContext): string => path.dirname(ctx.stateDir);

/** s20's create_worktree: a pending task gets its own worktree, made when it is claimed. */
export const createWorktreeTool = defineTool({
  name: 'create_worktree',
  description: 'Give a pending task its own git worktree and branch (teamd/<name>), made when the task is claimed; the workspace must be a git repository.',
  input: z.object({ task_id: taskIdSchema, name: z.string().optional(), base: z.string().min(1).max(200).optional() }),
  needsApprovedPlan: true,
  run: (input, ctx) =>
    expected(async () => {
      const workspace = workspaceOf(ctx);
      if (repoRoot(workspace) === null) return toolError(`${workspace} is not a git repository: tasks cannot get worktrees here`);
      const task = await ctx.board.giveWorktree(input.task_id, { name: input.name, base: input.base ?? currentHead(workspace) });
      recordWorktreeEvent(statePaths(ctx.stateDir), 'bound', { taskId: task.id, branch: task.worktree!.branch, by: ctx.name });
      return { content: `task ${task.id} will be worked in the worktree ${task.worktree!.name} on ${task.worktree!.branch}` };
    }),
});

/** s20's keep_worktree: recorded; teamd never removes a worktree by itself. */
export const keepWorktreeTool = defineTool({
  name: 'keep_worktree',
  description: "Keep a task's worktree after the task (teamd never removes one by itself; this records the intent).",
  input: z.object({ task_id: taskIdSchema }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => {
      const task = await ctx.board.get(input.task_id);
      if (!task.worktree) return toolError(`task ${input.task_id} has no worktree`);
      recordWorktreeEvent(statePaths(ctx.stateDir), 'kept', { taskId: task.id, branch: task.worktree.branch, by: ctx.name });
      return { content: `keeping the worktree of task ${task.id}` };
    }),
});

/** s20's remove_worktree: the folder goes, the branch stays; uncommitted changes only with force. */
export const removeWorktreeTool = defineTool({
  name: 'remove_worktree',
  description: "Remove a task's worktree folder (its branch stays). Refused when it has uncommitted changes, unless force is true.",
  input: z.object({ task_id: taskIdSchema, force: z.boolean().optional() }),
  needsApprovedPlan: true,
  run: (input, ctx) =>
    expected(async () => {
      const task = await ctx.board.get(input.task_id);
      if (!task.worktree) return toolError(`task ${input.task_id} has no worktree`);
      const paths = statePaths(ctx.stateDir);
      removeWorktree(workspaceOf(ctx), worktreePath(paths, task.worktree.name), input.force === true);
      await ctx.board.setWorktree(task.id, (w) => ({ ...w, state: w.state === 'merged' ? 'merged' : 'removed' }));
      recordWorktreeEvent(paths, 'removed', { taskId: task.id, branch: task.worktree.branch, by: ctx.name, forced: input.force === true });
      return { content: `removed the worktree of task ${task.id}; the branch ${task.worktree.branch} stays` };
    }),
});
