import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { readConfig } from '../../roster/roster.js';
import { listSkills, skillFolders } from '../../skills/skills.js';
import { openLocal } from '../context.js';
import { printJson, type Io } from '../output.js';
import { parseRole, parseTeammateName } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export function memoryCommand(io: Io): Command {
  return withCommonOptions(new Command('memory').description("the team's long-term memory and each teammate's (edit the files in <state>/memory/ by hand)"))
    .option('--teammate <name>', "only this teammate's memory (and the team's)", parseTeammateName)
    .action(async (options: CommonOptions & { teammate?: string }) => {
      const { paths } = await openLocal(io, options.dir, 'read');
      const names = options.teammate ? [options.teammate] : readConfig(paths.config).members.map((m) => m.name);
      if (options.teammate && !readConfig(paths.config).members.some((m) => m.name === options.teammate))
        throw new TeamdError('UNKNOWN_MEMBER', `${options.teammate} is not on the team (see teamd team)`);
      const read = (file: string): string | null => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);
      const files = [
        { scope: 'team', file: path.join(paths.memoryDir, 'MEMORY.md') },
        ...names.map((name) => ({ scope: name, file: path.join(paths.memoryDir, `${name}.md`) })),
      ].map((entry) => ({ ...entry, text: read(entry.file) }));
      if (options.json) return printJson(io, files);
      const shown = files.filter((entry) => entry.text !== null);
      if (shown.length === 0) return io.out(`no memory yet (${paths.memoryDir}: teammates add to it with remember, or write MEMORY.md there)\n`);
      io.out(shown.map((entry) => `# ${entry.scope === 'team' ? 'team' : entry.scope} (${entry.file})\n${entry.text!.trimEnd()}\n`).join('\n'));
    });
}

export function skillsCommand(io: Io): Command {
  return withCommonOptions(
    new Command('skills').description('the skills teammates can load (<state>/skills, .claude/skills, ~/.teamd/skills, ~/.claude/skills: <name>/SKILL.md)'),
  )
    .option('--role <role>', 'only those this role may use', parseRole)
    .action(async (options: CommonOptions & { role?: string }) => {
      const { paths } = await openLocal(io, options.dir, 'read');
      const folders = skillFolders(paths.skillsDir, path.dirname(paths.root), io.env);
      const all = options.role ? listSkills(folders, options.role) : listSkills(folders, '', true);
      if (options.json) return printJson(io, all);
      for (const skill of all) if (skill.warning) io.err(`warning: ${path.join(skill.dir, 'SKILL.md')}: ${skill.warning}\n`);
      if (all.length === 0) return io.out(`no skills (add one: ${paths.skillsDir}/<name>/SKILL.md)\n`);
      io.out(all.map((skill) => `${skill.name}${skill.roles ? ` [${skill.roles.join(', ')}]` : ''}: ${skill.description || '(no description)'}\n`).join(''));
    });
}
