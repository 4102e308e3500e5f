import { systemPrompt, type Identity } from '../agent/system-prompt.js';
import type { MemoryScope } from '../contracts/tool.js';
import { skillsCatalog } from '../skills/skills.js';
import { type Skill } from '../contracts/tool.js';

/** Skills and long-term memory: in the system prompt of every call, and behind load_skill and remember. */
export interface Knowledge {
  /** The skills its role may use, read afresh. */
  readonly skills: { list(): readonly Skill[] };
  readonly memory: { remember(scope: MemoryScope, text: string): Promise<string> };
  /** The team's memory file and its own, each bounded. */
  readonly teamMemory: () => string;
  readonly ownMemory: () => string;
}

/**
 * The system prompt, assembled before every model call from what may have changed since the last:
 * identity, role and tool guidance (fixed for the teammate's life) first, then the skills catalog
 * (changes when someone adds a skill), then memory (changes whenever someone remembers). The part
 * that changes least comes first, so the cached prefix of the prompt survives a new memory line.
 */
export function assembleSystemPrompt(identity: Identity, knowledge?: Knowledge): string {
  if (!knowledge) return systemPrompt(identity);
  const parts = [systemPrompt(identity), skillsCatalog(knowledge.skills.list())];
  const team = knowledge.teamMemory();
  const own = knowledge.ownMemory();
  if (team || own)
    parts.push(
      [
        'Long-term memory (remember adds a line; the person may edit these files):',
        team ? `The team's memory:\n${team}` : '',
        own ? `Your own memory:\n${own}` : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
  return parts.filter(Boolean).join('\n\n');
}
