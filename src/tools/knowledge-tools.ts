import * as z from 'zod';
import { loadSkill } from '../skills/skills.js';
import { defineTool, toolError } from '../contracts/tool.js';
import { expected } from './team-tools.js';

export const loadSkillTool = defineTool({
  name: 'load_skill',
  description:
    'Load a skill from the catalog in your instructions: returns its instructions and lists the files it comes with; give file to read one of those files.',
  input: z.object({ name: z.string().min(1).max(64), file: z.string().min(1).max(256).optional() }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    if (!ctx.skills) return toolError('skills are not available here');
    const skills = ctx.skills.list();
    const skill = skills.find((s) => s.name === input.name);
    if (!skill) return toolError(`there is no skill ${JSON.stringify(input.name)}; known: ${skills.map((s) => s.name).join(', ') || '(none)'}`);
    const loaded = loadSkill(skill, input.file);
    if ('error' in loaded) return toolError(loaded.error);
    const files =
      loaded.files.length > 0 ? `\n\n[files of this skill, read with load_skill {"name": "${skill.name}", "file": …}: ${loaded.files.join(', ')}]` : '';
    return { content: `${loaded.text}${input.file === undefined ? files : ''}` };
  },
});

export const rememberTool = defineTool({
  name: 'remember',
  description:
    'Keep a fact for later, in your long-term memory (scope "me") or the whole team\'s (scope "team"): one line, shown in the instructions of every later turn. For lasting facts (conventions, where things are, decisions), not for progress.',
  input: z.object({ text: z.string().min(1).max(2_000), scope: z.enum(['team', 'me']).default('me') }),
  needsApprovedPlan: false,
  run: (input, ctx) =>
    expected(async () => {
      if (!ctx.memory) return toolError('memory is not available here');
      await ctx.memory.remember(input.scope, input.text);
      return { content: `remembered (${input.scope === 'team' ? "the team's memory" : 'your memory'})` };
    }),
});
