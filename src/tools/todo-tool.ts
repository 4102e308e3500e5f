import * as z from 'zod';
import { todoListSchema } from '../contracts/todos.js';
import { defineTool } from '../contracts/tool.js';

export const todoWriteTool = defineTool({
  name: 'todo_write',
  description:
    'Write your plan for the current task as a short list of steps, replacing the previous list: each {content, status: pending|in_progress|completed, activeForm}. ' +
    'Keep exactly one step in_progress while you work, and update the list as steps are done. The lead sees it in teamd status.',
  input: z.object({ items: todoListSchema }),
  needsApprovedPlan: false,
  run: async (input) => {
    const done = input.items.filter((item) => item.status === 'completed').length;
    const current = input.items.find((item) => item.status === 'in_progress');
    return {
      content: `plan saved: ${done} of ${input.items.length} done${current ? `; now: ${current.activeForm}` : ''}`,
      effect: { kind: 'todos', items: input.items },
    };
  },
});
