import * as z from 'zod';
import { TeamdError } from '../errors.js';
import { defineTool, toolError, type ToolContext, type ToolResult } from '../contracts/tool.js';

/** Runs a lead power; a refusal (an unknown name, a request already answered) is an error the model reads. */
async function lead(ctx: ToolContext, act: (powers: NonNullable<ToolContext['lead']>) => string | Promise<string>): Promise<ToolResult> {
  if (!ctx.lead) return toolError('only the lead agent has this tool');
  try {
    return { content: await act(ctx.lead) };
  } catch (error) {
    if (error instanceof TeamdError) return toolError(error.message);
    throw error;
  }
}

/** The roster, read-only, for every teammate (the lead's powers, or the roster a teammate's schedule reads): who to message about what. */
export const listTeammatesTool = defineTool({
  name: 'list_teammates',
  description: 'List the teammates on the roster: name, role, status and the task each works on.',
  input: z.object({}),
  needsApprovedPlan: false,
  run: (_input, ctx) => {
    const roster = ctx.lead?.members() ?? ctx.schedule?.members();
    if (!roster) return Promise.resolve(toolError('the roster cannot be read here'));
    const members = roster.filter((m) => m.name !== ctx.name);
    if (members.length === 0) return Promise.resolve({ content: ctx.lead ? 'no teammates yet: spawn_teammate adds one' : 'no other teammates' });
    return Promise.resolve({ content: members.map((m) => `${m.name} (${m.role}): ${m.status}${m.task ? `, task ${m.task}` : ''}`).join('\n') });
  },
});

export const spawnTeammateTool = defineTool({
  name: 'spawn_teammate',
  description:
    'Start a new teammate: a name (a-z, 0-9, _ or -), a role (coder, reviewer, tester…), optionally plan: true (it submits a plan before changing anything), ' +
    'a token budget and instructions. It starts idle and claims ready tasks by itself.',
  input: z.object({
    name: z.string().min(1).max(32),
    role: z.string().min(1).max(64),
    plan: z.boolean().optional(),
    budgetTokens: z.number().int().positive().optional(),
    prompt: z
      .string()
      .max(16 * 1024)
      .optional(),
  }),
  needsApprovedPlan: false,
  run: (input, ctx) => lead(ctx, (powers) => powers.spawn(input)),
});

export const shutdownTeammateTool = defineTool({
  name: 'shutdown_teammate',
  description: 'Ask a teammate to finish its current step and shut down (force: true stops it at once). Its open task goes back to the board.',
  input: z.object({ name: z.string().min(1).max(32), force: z.boolean().default(false) }),
  needsApprovedPlan: false,
  run: (input, ctx) => lead(ctx, (powers) => powers.shutdown(input.name, input.force)),
});

export const cancelTaskTool = defineTool({
  name: 'cancel_task',
  description: 'Cancel a task that is no longer wanted (pending or in progress); tasks blocked by it stay blocked until you change them.',
  input: z.object({ id: z.number().int().positive() }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    try {
      const task = await ctx.board.cancel(input.id);
      return { content: `task ${task.id} cancelled` };
    } catch (error) {
      if (error instanceof TeamdError) return toolError(error.message);
      throw error;
    }
  },
});

export const reviewPlanTool = defineTool({
  name: 'review_plan',
  description:
    "Answer a teammate's plan approval request (its requestId, or 4+ characters of it): approve it, or reject it with feedback saying what to change.",
  input: z.object({
    requestId: z.string().min(4).max(128),
    approve: z.boolean(),
    feedback: z
      .string()
      .max(16 * 1024)
      .default(''),
  }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    lead(ctx, (powers) => {
      if (!input.approve && input.feedback.trim() === '') throw new TeamdError('USAGE', 'a rejection needs feedback: say what to change');
      return powers.answer(input.requestId, input.approve, input.feedback, 'plan');
    }),
});

export const requestPlanTool = defineTool({
  name: 'request_plan',
  description:
    'Ask a teammate to submit a plan for a task (one it holds, or a pending one it may take) before it changes anything for it: ' +
    'its tools that change files or the board refuse until you approve the plan with review_plan. A note says what the plan should cover.',
  input: z.object({
    teammate: z.string().min(1).max(32),
    task: z.number().int().positive(),
    note: z
      .string()
      .max(16 * 1024)
      .default(''),
  }),
  needsApprovedPlan: false,
  run: (input, ctx) => lead(ctx, (powers) => powers.requestPlan(input.teammate, input.task, input.note)),
});

export const answerPermissionTool = defineTool({
  name: 'answer_permission',
  description:
    "Answer a teammate's permission request (a call a rule asks approval for; its requestId, or 4+ characters of it): allow it, or refuse it saying why. " +
    'Only when the settings let you (leadAnswers.permissions); otherwise the person answers it.',
  input: z.object({
    requestId: z.string().min(4).max(128),
    allow: z.boolean(),
    reason: z
      .string()
      .max(16 * 1024)
      .default(''),
  }),
  needsApprovedPlan: false,
  run: (input, ctx) => lead(ctx, (powers) => powers.answer(input.requestId, input.allow, input.reason, 'permission')),
});

export const reportTool = defineTool({
  name: 'report',
  description:
    'Tell the person running the team how the goal goes (they read user.jsonl). final: true is your report when the goal is done or cannot be done: ' +
    "say what was built, which tasks completed and which failed, and why. Name the goal (the goal= of the person's message) when there are several.",
  input: z.object({
    content: z
      .string()
      .min(1)
      .max(64 * 1024),
    final: z.boolean().default(false),
    /** The goal it is about: the goal= of the person's message. */
    goal: z.string().min(1).max(128).optional(),
  }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    const result = await lead(ctx, (powers) => powers.report(input.content, input.final, input.goal));
    return result.isError ? result : { ...result, effect: { kind: 'reported', final: input.final } };
  },
});
