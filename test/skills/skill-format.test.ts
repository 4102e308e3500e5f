import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSkills, skillFolders, skillsCatalog } from '../../src/skills/skills.js';
import { runTeamd } from '../helpers/processes.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const skill = (root: string, folder: string, text: string): void => {
  fs.mkdirSync(path.join(root, folder), { recursive: true });
  fs.writeFileSync(path.join(root, folder, 'SKILL.md'), text);
};

describe('SKILL.md front matter, read as the YAML the Agent Skills format says it is', () => {
  it('folded and literal blocks, comments, quotes, lists and nested metadata; skills in .claude/skills and ~/.claude/skills are found', async () => {
    const ws = makeTempDir('teamd-ws-');
    const home = makeTempDir('teamd-home-');
    const project = path.join(ws, '.claude', 'skills');
    // anthropics/skills' template: a comment after the name.
    skill(
      project,
      'template-skill',
      '---\nname: template-skill # the folder name\ndescription: Replace with a description of the skill\n---\n\n# Insert instructions below\n',
    );
    skill(
      project,
      'pdf',
      [
        '---',
        'name: pdf',
        'description: >',
        '  Comprehensive PDF manipulation toolkit for extracting text and tables,',
        '  creating new PDFs, merging and splitting documents.',
        'license: Proprietary. LICENSE.txt has complete terms',
        'allowed-tools:',
        '  - Read',
        '  - Bash',
        'metadata:',
        '  version: "1.2"',
        '  author: someone',
        '---',
        'Use pypdf.',
      ].join('\n'),
    );
    skill(project, 'literal', "---\nname: 'literal'\ndescription: |\n  Line one.\n  Line two.\n---\nbody\n");
    skill(path.join(home, '.claude', 'skills'), 'from-home', '---\nname: from-home\ndescription: "A skill of the user\'s Claude Code: found too"\n---\nbody\n');
    skill(project, 'broken', '---\nname: [unclosed\ndescription: x\n---\nbody\n');

    const skills = listSkills(skillFolders(path.join(ws, '.team', 'skills'), ws, { HOME: home }), 'coder');
    const byName = Object.fromEntries(skills.map((s) => [s.name, s]));
    expect(byName['template-skill']).toMatchObject({ description: 'Replace with a description of the skill', warning: null });
    expect(byName.pdf!.description).toBe(
      'Comprehensive PDF manipulation toolkit for extracting text and tables, creating new PDFs, merging and splitting documents.',
    );
    expect(byName.pdf!.warning).toBeNull();
    expect(byName.literal!.description).toBe('Line one.\nLine two.');
    expect(byName['from-home']!.description).toBe("A skill of the user's Claude Code: found too");
    expect(byName.broken!.warning).toMatch(/no front matter that reads as YAML/);
    expect(skillsCatalog(skills)).toContain('- pdf: Comprehensive PDF manipulation toolkit');

    // The CLI lists the same, from the same places.
    fs.mkdirSync(path.join(ws, '.team'), { recursive: true });
    const listed = await runTeamd(['skills', '--dir', path.join(ws, '.team'), '--json'], { env: { HOME: home } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Comprehensive PDF manipulation toolkit');
    expect(listed.stdout).toContain('from-home');
  });
});
