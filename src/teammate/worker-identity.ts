import path from 'node:path';
import type { Identity } from '../agent/system-prompt.js';
import { LEAD, LEAD_ROLE, type Member } from '../contracts/roster.js';
import type { Tool } from '../contracts/tool.js';
import type { Logger } from '../log/logger.js';
import { ALL_TOOLS, LEAD_TOOLS } from '../tools/registry.js';
import { repairConversation } from '../agent/conversation.js';
import type { Session, SessionStore } from './session-store.js';

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

/** The saved conversation, repaired (and rewritten) where the API would refuse it as it is. */
export function loadRepairedSession(sessions: SessionStore, logger: Logger): Session {
  const session = sessions.load();
  const repairs = repairConversation(session.messages);
  if (repairs.droppedBlocks + repairs.answeredCalls + repairs.droppedResults > 0) {
    logger.warn({ repairs }, 'repaired the saved conversation so the API accepts it');
    sessions.rewrite(session);
  }
  return session;
}
