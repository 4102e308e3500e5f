import path from 'node:path';
import type { Identity } from '../agent/system-prompt.js';
import { LEAD, LEAD_ROLE, type Member } from '../contracts/roster.js';
import type { Tool } from '../contracts/tool.js';
import { ALL_TOOLS, LEAD_TOOLS } from '../tools/registry.js';

/** The member `lead` with the role `lead` is the lead agent: the lead's tools and powers, its own cursor in lead.jsonl, no task of its own. */
export function isLeadAgent(member: Member): boolean {
  return member.name === LEAD && member.role === LEAD_ROLE;
}

/** Who the teammate is, as its system prompt and its directives say it. */
export function teammateIdentity(member: Member, workspace: string): Identity {
  const lead = isLeadAgent(member);
  return {
    name: member.name,
    role: member.role,
    team: path.basename(workspace),
    workspace,
    prompt: member.prompt,
    planRequired: member.plan === true && !lead,
    lead,
  };
}

/** The lead's tools: its own, and those the settings widen them with (leadTools: bash and file writes, say). */
export function leadTools(widenedWith: readonly string[]): Tool[] {
  return [...LEAD_TOOLS, ...ALL_TOOLS.filter((tool) => widenedWith.includes(tool.name))];
}
