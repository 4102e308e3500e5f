import * as z from 'zod';
import { defineTool, toolError } from '../contracts/tool.js';

export const connectMcpTool = defineTool({
  name: 'connect_mcp',
  description:
    'Connect one of your MCP servers that is not connected (it failed to start, or stopped), and list its tools: ' +
    'they are offered as mcp__<server>__<tool> from your next step on. Servers configured for your role connect by themselves when you start.',
  input: z.object({ server: z.string().min(1).max(64) }),
  needsApprovedPlan: false,
  run: async (input, ctx) => (ctx.mcp ? ctx.mcp.connect(input.server) : toolError('no MCP server is configured for you')),
});
