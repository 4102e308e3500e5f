import { systemPrompt, type Identity } from '../agent/system-prompt.js';
import { skillsCatalog, type Skill } from '../skills/skills.js';

export interface PromptSources {
  readonly identity: Identity;
  /** The skills its role may use, read afresh. */
  readonly skills: () => readonly Skill[];
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
export function assembleSystemPrompt(sources: PromptSources): string {
  const parts = [systemPrompt(sources.identity), skillsCatalog(sources.skills())];
  const team = sources.teamMemory();
  const own = sources.ownMemory();
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
