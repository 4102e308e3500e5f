import * as z from 'zod';
import { defineTool, toolError } from '../contracts/tool.js';

export const taskTool = defineTool({
  name: 'task',
  description:
    'Hand a self-contained job to a one-shot helper with a fresh conversation (to explore, search or check something without filling your own context). ' +
    'It gets read_file, glob, grep and load_skill unless tools names others (bash, write_file, edit_file, job_output); it cannot use team tools. Only its final report comes back. Several task calls in one turn run at the same time.',
  input: z.object({
    description: z.string().trim().min(1).max(200),
    prompt: z
      .string()
      .min(1)
      .max(64 * 1024),
    tools: z.array(z.string().min(1).max(64)).max(16).optional(),
  }),
  needsApprovedPlan: false,
  concurrent: true,
  run: async (input, ctx) => {
    if (!ctx.subagent) return toolError('a helper cannot start helpers of its own');
    return ctx.subagent.run(input, ctx);
  },
});
