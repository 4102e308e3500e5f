import * as z from 'zod';
import { MAX_DESCRIPTION_CHARS, MAX_RESULT_CHARS, MAX_SUBJECT_CHARS, TASK_STATUSES, taskIdSchema } from '../contracts/task.js';
import { isTeamdError } from '../errors.js';
import { defineTool, toolError, type ToolResult } from '../contracts/tool.js';
import { askedWorktree, teamWorktree } from '../worktree/team-setting.js';

/** Board and mailbox errors are expected outcomes for the model (not ready, not yours): return them. */
export async function expected(run: () => Promise<ToolResult> | ToolResult): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    if (isTeamdError(error)) return toolError(`${error.code}: ${error.message}`);
    throw error;
  }
}

const json = (value: unknown): ToolResult => ({ content: JSON.stringify(value, null, 2) });

export const listTasksTool = defineTool({
  name: 'list_tasks',
  description: 'List tasks on the board (optionally by status, or only ready ones).',
  input: z.object({ status: z.enum(TASK_STATUSES).optional(), ready: z.boolean().optional() }),
  needsApprovedPlan: false,
  run: async (input, ctx) =>
    json(
      (await ctx.board.list({ status: input.status, ready: input.ready })).tasks.map((t) => ({
        id: t.id,
        subject: t.subject,
        status: t.status,
        owner: t.owner,
        blockedBy: t.blockedBy,
        ready: t.ready,
        stuck: t.stuck,
      })),
    ),
});

export const getTaskTool = defineTool({
  name: 'get_task',
  description: 'Show one task in full.',
  input: z.object({ id: taskIdSchema }),
  needsApprovedPlan: false,
  run: (input, ctx) => expected(async () => json(ctx.board.get(input.id))),
});

export const createTaskTool = defineTool({
  name: 'create_task',
  description:
    'Add a task to the board, optionally blocked by other task ids. Give a key (e.g. your step name) to make it safe to repeat: the same key never makes a second task.',
  input: z.object({
    subject: z.string().min(1).max(MAX_SUBJECT_CHARS),
    description: z.string().max(MAX_DESCRIPTION_CHARS).optional(),
    blocked_by: z.array(taskIdSchema).optional(),
    /** A key of your choosing: creating a task with a key already on the board returns that task instead of a second one. */
    key: z.string().min(1).max(200).optional(),
    /** true: worked in its own git worktree (from the workspace's HEAD); false: in the workspace; absent: as the team setting "worktrees" says. */
    worktree: z.boolean().optional(),
  }),
  needsApprovedPlan: true,
  // The team setting "worktrees": "always" reaches tasks a teammate creates too.
  run: (input, ctx) =>
    expected(async () => {
      const asked = input.worktree === true ? askedWorktree(ctx.stateDir) : undefined;
      if (asked && 'error' in asked) return toolError(asked.error);
      return json(
        await ctx.board.add({
          subject: input.subject,
          description: input.description,
          blockedBy: input.blocked_by,
          worktree: input.worktree === undefined ? teamWorktree(ctx.stateDir) : asked,
          createdBy: ctx.name,
          key: input.key,
        }),
      );
    }),
});

export const claimTaskTool = defineTool({
  name: 'claim_task',
  description: 'Claim a ready task for yourself.',
  input: z.object({ id: taskIdSchema }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => {
      const task = await ctx.board.claim(input.id, ctx.name);
      ctx.claims.set(task.id, task.claim);
      return { ...json(task), effect: { kind: 'task-claimed', id: task.id, claim: task.claim } };
    }),
});

export const completeTaskTool = defineTool({
  name: 'complete_task',
  description: 'Mark your task completed, with a short result.',
  input: z.object({ id: taskIdSchema, result: z.string().max(MAX_RESULT_CHARS) }),
  needsApprovedPlan: true,
  run: (input, ctx) =>
    expected(async () => {
      await ctx.control.beforeComplete?.(input.id);
      const task = await ctx.board.complete(input.id, { owner: ctx.name, claim: ctx.claims.get(input.id) }, input.result);
      return { content: `task ${task.id} completed`, effect: { kind: 'task-completed', id: task.id } };
    }),
});

export const failTaskTool = defineTool({
  name: 'fail_task',
  description: 'Mark your task failed, with the reason (the lead is told).',
  input: z.object({ id: taskIdSchema, reason: z.string().min(1).max(MAX_RESULT_CHARS) }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => {
      const task = await ctx.board.fail(input.id, { owner: ctx.name, claim: ctx.claims.get(input.id) }, input.reason);
      return { content: `task ${task.id} failed`, effect: { kind: 'task-failed', id: task.id } };
    }),
});

export const sendMessageTool = defineTool({
  name: 'send_message',
  description: 'Send a message to a teammate or to the lead.',
  input: z.object({ to: z.string().min(1), content: z.string().min(1) }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => {
      const message = await ctx.mailbox.send({ from: ctx.name, to: input.to, content: input.content });
      return { content: `sent to ${message.to}` };
    }),
});

export const broadcastTool = defineTool({
  name: 'broadcast',
  description: 'Send a message to every teammate and the lead.',
  input: z.object({ content: z.string().min(1) }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => ({
      content: `sent to ${(await ctx.mailbox.broadcast({ from: ctx.name, content: input.content })).map((m) => m.to).join(', ') || 'nobody'}`,
    })),
});

export const idleTool = defineTool({
  name: 'idle',
  description: 'Stop working and wait for messages or new tasks.',
  input: z.object({}),
  needsApprovedPlan: false,
  run: async () => ({ content: 'going idle', effect: { kind: 'idle' } }),
});

export const submitPlanTool = defineTool({
  name: 'submit_plan',
  description: 'Send your plan to the lead for approval; wait for the answer before changing anything.',
  input: z.object({
    plan: z
      .string()
      .min(1)
      .max(64 * 1024),
  }),
  needsApprovedPlan: false,
  run: async (input, ctx) => ({ content: `plan sent for approval (request ${await ctx.control.submitPlan(input.plan)}); wait for the lead's answer` }),
});
