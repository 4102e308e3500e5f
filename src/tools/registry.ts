import * as z from 'zod';
import { bashTool } from './bash.js';
import { editFileTool, readFileTool, writeFileTool } from './file-tools.js';
import { globTool, grepTool } from './search-tools.js';
import {
  broadcastTool,
  claimTaskTool,
  completeTaskTool,
  createTaskTool,
  failTaskTool,
  getTaskTool,
  idleTool,
  listTasksTool,
  sendMessageTool,
  submitPlanTool,
} from './team-tools.js';
import { jobKillTool, jobOutputTool } from './job-tools.js';
import { todoWriteTool } from './todo-tool.js';
import { taskTool } from './subagent-tool.js';
import { loadSkillTool, rememberTool } from './knowledge-tools.js';
import { cancelCronTool, listCronsTool, scheduleCronTool } from './cron-tools.js';
import {
  answerPermissionTool,
  cancelTaskTool,
  listTeammatesTool,
  reportTool,
  requestPlanTool,
  reviewPlanTool,
  shutdownTeammateTool,
  spawnTeammateTool,
} from './lead-tools.js';
import { createWorktreeTool, keepWorktreeTool, removeWorktreeTool } from './worktree-tools.js';
import { budgetResult } from './output-spill.js';
import { toolError, type Tool, type ToolContext, type ToolResult, type ToolSource, type ToolSet } from '../contracts/tool.js';
import type { ToolGate } from '../contracts/tool.js';
import type { ApiTool } from '../contracts/model.js';

export const ALL_TOOLS: readonly Tool[] = [
  bashTool,
  jobOutputTool,
  jobKillTool,
  readFileTool,
  writeFileTool,
  editFileTool,
  globTool,
  grepTool,
  listTasksTool,
  getTaskTool,
  createTaskTool,
  claimTaskTool,
  completeTaskTool,
  failTaskTool,
  sendMessageTool,
  broadcastTool,
  idleTool,
  submitPlanTool,
  todoWriteTool,
  taskTool,
  loadSkillTool,
  rememberTool,
  scheduleCronTool,
  listCronsTool,
  cancelCronTool,
  createWorktreeTool,
  keepWorktreeTool,
  removeWorktreeTool,
  listTeammatesTool,
];

/**
 * The lead agent's tools: it reads the workspace and the board, staffs the team, creates and
 * cancels tasks, answers requests and reports to the person. No bash and no file writes, and
 * it never claims a task itself.
 */
export const LEAD_TOOLS: readonly Tool[] = [
  readFileTool,
  globTool,
  grepTool,
  listTasksTool,
  getTaskTool,
  createTaskTool,
  cancelTaskTool,
  listTeammatesTool,
  spawnTeammateTool,
  shutdownTeammateTool,
  reviewPlanTool,
  requestPlanTool,
  answerPermissionTool,
  reportTool,
  sendMessageTool,
  broadcastTool,
  idleTool,
  todoWriteTool,
  loadSkillTool,
  rememberTool,
  scheduleCronTool,
  listCronsTool,
  cancelCronTool,
];

/** The tools by name, with the one place where model input is validated. */
export class ToolRegistry implements ToolSet {
  private readonly byName: Map<string, Tool>;

  constructor(
    tools: readonly Tool[] = ALL_TOOLS,
    /** While false, tools that need an approved plan refuse (a required plan is not approved yet). */
    private readonly planApproved: () => boolean = () => true,
    /** Permission rules and hooks around every call (policy/tool-gate.ts); none: every call runs. */
    private readonly gate: ToolGate | null = null,
    /** Tools that come and go (MCP servers'), after the fixed ones; a fixed tool's name always wins. */
    private readonly source: ToolSource | null = null,
  ) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Whether calls of this tool in one answer may run at the same time. */
  concurrent(name: string): boolean {
    return this.find(name)?.concurrent === true;
  }

  /** Waits for the tool source's changes under way, so the next request offers what is there now; a stop ends the wait. */
  async settled(signal?: AbortSignal): Promise<void> {
    if (!this.source || signal?.aborted) return;
    let onAbort = (): void => {};
    const aborted = new Promise<void>((resolve) => (onAbort = resolve));
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([this.source.settled(), aborted]);
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  apiTools(): ApiTool[] {
    this.fixed ??= [...this.byName.values()].map(apiTool);
    if (!this.source) return this.fixed;
    return [
      ...this.fixed,
      ...this.source
        .listed()
        .filter((tool) => !this.byName.has(tool.name) && !this.withheld.has(tool.name))
        .map(apiTool),
    ];
  }

  /** Tools that come and go which the API refused: no longer offered to the model. */
  private readonly withheld = new Set<string>();

  /**
   * Stops offering a server's tool the API refuses (its schema, say): a request that carries it
   * fails whole, and every task after would fail the same way. A fixed tool is never withheld
   * (its schema is teamd's). True when the tool was withheld now.
   */
  withhold(name: string): boolean {
    if (this.byName.has(name) || this.withheld.has(name) || !this.source?.listed().some((tool) => tool.name === name)) return false;
    this.withheld.add(name);
    return true;
  }

  /** The fixed tools as the API takes them: built once (each schema conversion costs). */
  private fixed: ApiTool[] | undefined;

  private find(name: string): Tool | undefined {
    return this.byName.get(name) ?? this.source?.find(name);
  }

  private known(): string[] {
    return [...this.byName.keys(), ...(this.source?.listed().map((tool) => tool.name) ?? [])];
  }

  /** Runs a tool call; `callId` names a large output kept aside (output-spill.ts). */
  async run(name: string, rawInput: unknown, ctx: ToolContext, callId?: string): Promise<ToolResult> {
    return budgetResult(await this.runUnbudgeted(name, rawInput, ctx), { stateDir: ctx.stateDir, name: ctx.name, callId });
  }

  private async runUnbudgeted(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.find(name);
    if (!tool) return toolError(`unknown tool ${JSON.stringify(name)}; available: ${this.known().join(', ')}`);
    const parsed = tool.input.safeParse(rawInput);
    if (!parsed.success) {
      return toolError(`invalid input for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`);
    }
    if (tool.needsApprovedPlan && !this.planApproved()) {
      return toolError(`${name} changes things, and your plan is not approved yet: call submit_plan and wait for the lead's answer`);
    }
    let input: unknown = parsed.data;
    if (this.gate) {
      let verdict: Awaited<ReturnType<ToolGate['before']>>;
      try {
        verdict = await this.gate.before(name, parsed.data, ctx.signal);
      } catch (error) {
        // A permission check that cannot be made (a full disk for the request, git gone) refuses the call; it never lets it through.
        return toolError(`${name} was not run: the permission check failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (verdict.kind === 'refuse') return toolError(verdict.content);
      if (verdict.input !== parsed.data) {
        // A hook replaced the input: it is checked like the model's.
        const replaced = tool.input.safeParse(verdict.input);
        if (!replaced.success) return toolError(`a PreToolUse hook gave ${name} an invalid input: ${replaced.error.issues.map((i) => i.message).join('; ')}`);
        input = replaced.data;
      }
    }
    let result: ToolResult;
    try {
      const gate = this.gate;
      // A file the rules keep from this tool is left out of what it lists or searches.
      result = await tool.run(input, gate ? { ...ctx, readable: (file) => gate.readable(name, file) } : ctx);
    } catch (error) {
      result = toolError(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!this.gate) return result;
    try {
      return await this.gate.after(name, input, result);
    } catch {
      return result;
    }
  }
}

function apiTool(tool: Tool): ApiTool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: (tool.inputSchema ?? z.toJSONSchema(tool.input)) as ApiTool['input_schema'],
  };
}
