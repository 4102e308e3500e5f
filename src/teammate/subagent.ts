import { Compactor } from '../agent/compactor.js';
import { subtaskDirective } from '../contracts/directives.js';
import { runAgent } from '../agent/loop.js';
import type { ChatMessage, ModelClient, Usage } from '../contracts/model.js';
import { describeModelError } from '../model/model-errors.js';
import type { ToolGate, Tool, ToolContext, ToolResult } from '../contracts/tool.js';
import { ALL_TOOLS, ToolRegistry } from '../tools/registry.js';

/** What a subagent gets when `task` names no tools: it reads, it does not change anything. */
export const SUBAGENT_DEFAULT_TOOLS = ['read_file', 'glob', 'grep', 'load_skill'] as const;
/** What a subagent may be given: the file and shell tools. Never the team's tools (the board, messages, schedule, memory) nor `task` itself. */
export const SUBAGENT_ALLOWED_TOOLS = [...SUBAGENT_DEFAULT_TOOLS, 'bash', 'write_file', 'edit_file', 'job_output'] as const;
export const SUBAGENT_MAX_STEPS = 25;

export interface SubagentDeps {
  readonly name: string;
  readonly model: ModelClient;
  readonly maxTokens: number;
  readonly compactThresholdTokens: number;
  /** The same permission rules and hooks as the teammate's own calls. */
  readonly gate: ToolGate | null;
  readonly planApproved: () => boolean;
  /** Counts a call's tokens in the teammate's usage (and so its budget). */
  readonly onUsage: (usage: Usage) => void;
  /** True when the teammate's budget would be exceeded by another call. */
  readonly overBudget: () => boolean;
  readonly shouldStop: () => boolean;
  /** Told when a helper has ended, however it ended (SubagentStop hooks). */
  readonly onStop?: (description: string) => Promise<void>;
}

export interface SubagentRequest {
  readonly description: string;
  readonly prompt: string;
  readonly tools?: readonly string[] | undefined;
}

/**
 * One-shot helpers inside the teammate's process (s04's subagents): each gets a fresh
 * conversation holding only its prompt, a restricted tool set, the teammate's hooks and
 * permissions, and a step limit. Its tokens count as the teammate's; only its final text comes
 * back, and nothing of its conversation enters the teammate's.
 */
export class SubagentRunner {
  constructor(private readonly deps: SubagentDeps) {}

  async run(request: SubagentRequest, parent: ToolContext): Promise<ToolResult> {
    const result = await this.work(request, parent);
    await this.deps.onStop?.(request.description);
    return result;
  }

  private async work(request: SubagentRequest, parent: ToolContext): Promise<ToolResult> {
    const names = request.tools ?? SUBAGENT_DEFAULT_TOOLS;
    const refused = names.filter((name) => !(SUBAGENT_ALLOWED_TOOLS as readonly string[]).includes(name));
    if (refused.length > 0)
      return { isError: true, content: `a subagent cannot have ${refused.join(', ')}; it may have: ${SUBAGENT_ALLOWED_TOOLS.join(', ')}` };
    const tools: Tool[] = ALL_TOOLS.filter((tool) => names.includes(tool.name));
    const registry = new ToolRegistry(tools, this.deps.planApproved, this.deps.gate);
    // Its own context: no jobs, schedule or memory of the teammate's; the same workspace, shell and stop signal.
    const ctx: ToolContext = {
      name: parent.name,
      workspace: parent.workspace,
      stateDir: parent.stateDir,
      board: parent.board,
      mailbox: parent.mailbox,
      shell: parent.shell,
      signal: parent.signal,
      claims: new Map(),
      control: { submitPlan: async () => 'a subagent submits no plan' },
      ...(parent.skills ? { skills: parent.skills } : {}),
    };
    const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: subtaskDirective(request.description, request.prompt) }] }];
    const system = [
      `You are a helper of ${this.deps.name}, given one job: "${request.description}". Do it with your tools (${names.join(', ') || 'none'}), then answer with a short final report: what you found or did. Your conversation is thrown away; only that report reaches ${this.deps.name}.`,
      'You cannot talk to the team, claim tasks or start helpers of your own.',
    ].join('\n\n');
    let last = '';
    let failure: string | null = null;
    let ended = 'end_turn';
    const events = runAgent(messages, {
      model: this.deps.model,
      tools: registry,
      ctx,
      compactor: new Compactor({ model: this.deps.model, thresholdTokens: this.deps.compactThresholdTokens, context: () => [] }),
      system,
      maxTokens: this.deps.maxTokens,
      maxSteps: SUBAGENT_MAX_STEPS,
      shouldStop: this.deps.shouldStop,
      overBudget: () => this.deps.overBudget(),
    });
    for await (const event of events) {
      if (event.type === 'usage') this.deps.onUsage(event.usage);
      if (event.type === 'text') last = event.text;
      if (event.type === 'turn_end') {
        ended = event.reason;
        if (event.text) last = event.text;
      }
      if (event.type === 'error') failure = describeModelError(event.error);
    }
    if (failure) return { isError: true, content: `the subagent "${request.description}" failed: ${failure}` };
    if (ended === 'refusal') return { isError: true, content: `the subagent "${request.description}" was refused by the model: ${last || '(no text)'}` };
    if (ended === 'budget') return { isError: true, content: `the subagent "${request.description}" stopped: the token budget is spent` };
    if (ended === 'step_limit')
      return {
        isError: true,
        content: `the subagent "${request.description}" used its ${SUBAGENT_MAX_STEPS} steps without finishing. Last said: ${last || '(nothing)'}`,
      };
    if (ended === 'stopped') return { isError: true, content: `the subagent "${request.description}" was stopped (the teammate is stopping)` };
    return { content: last || '(the subagent gave no final text)' };
  }
}
