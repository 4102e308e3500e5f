import type { ToolContext } from '../contracts/tool.js';
import type { RuntimeParts } from './runtime-parts.js';
import type { TeammateDeps } from './teammate-deps.js';

/** What a teammate's tools may touch, for one unit of work: its workspace (or its task's worktree), stores, helpers and control. */
export function teammateToolContext(deps: TeammateDeps, parts: RuntimeParts, signal: AbortSignal, submitPlan: (plan: string) => Promise<string>): ToolContext {
  const { identity, board, mailbox } = deps;
  return {
    name: identity.name,
    workspace: parts.hand.root,
    ...(deps.extraRoots ? { extraRoots: deps.extraRoots } : {}),
    stateDir: deps.stateDir,
    shell: deps.shell,
    board,
    mailbox,
    signal,
    jobs: deps.jobs,
    subagent: parts.subagents,
    ...(deps.schedule ? { schedule: deps.schedule } : {}),
    ...(deps.mcp ? { mcp: deps.mcp } : {}),
    ...(deps.lead ? { lead: deps.lead } : {}),
    ...(deps.knowledge ? { skills: deps.knowledge.skills, memory: deps.knowledge.memory } : {}),
    claims: parts.hand.claims,
    control: {
      beforeComplete: (id) => parts.hand.beforeComplete(id),
      submitPlan,
    },
  };
}
