import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Skill } from '../contracts/tool.js';

/** The user's own skills, for every team: $TEAMD_USER_SKILLS, else ~/.teamd/skills. */
export function userSkillsDir(env: NodeJS.ProcessEnv): string {
  return env.TEAMD_USER_SKILLS || path.join(env.HOME || os.homedir(), '.teamd', 'skills');
}

/**
 * Where a teammate finds skills, first found first: the team's (`.team/skills`), the project's
 * as Claude Code keeps them (`.claude/skills` of the workspace), the user's for teamd, and the
 * user's for Claude Code (`~/.claude/skills`).
 */
export function skillFolders(teamSkills: string, workspace: string, env: NodeJS.ProcessEnv): string[] {
  return [teamSkills, path.join(workspace, '.claude', 'skills'), userSkillsDir(env), path.join(env.HOME || os.homedir(), '.claude', 'skills')];
}

/** A skill: a folder with SKILL.md (front matter `name`, `description`; teamd's `roles` limits who sees it). */
const MAX_SKILLS = 100;
const MAX_DESCRIPTION_CHARS = 1_024;
const MAX_SKILL_BYTES = 256 * 1024;
const SKILL_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * The skills a teammate of `role` may use, from the given folders in order: a skill of an earlier
 * folder (the workspace's) hides one of the same name in a later one (the user's). Read afresh at
 * each call, so a skill added while the team runs is in the next turn's catalog.
 */
export function listSkills(folders: readonly string[], role: string, anyRole = false): Skill[] {
  const found = new Map<string, Skill>();
  for (const folder of folders) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.size >= MAX_SKILLS) break;
      if (!entry.isDirectory() || !SKILL_NAME.test(entry.name)) continue;
      const skill = readSkill(path.join(folder, entry.name));
      if (skill && !found.has(skill.name)) found.set(skill.name, skill);
    }
  }
  return [...found.values()].filter((skill) => anyRole || skill.roles === null || skill.roles.includes(role));
}

function readSkill(dir: string): Skill | null {
  const file = path.join(dir, 'SKILL.md');
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_SKILL_BYTES)
      return { name: path.basename(dir), description: '', dir, roles: null, warning: `SKILL.md is over ${MAX_SKILL_BYTES} bytes` };
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const front = frontMatter(text);
  const folderName = path.basename(dir);
  if (!front)
    return { name: folderName, description: '', dir, roles: null, warning: 'SKILL.md has no front matter that reads as YAML (--- name: … description: … ---)' };
  const name = front.fields.name ?? folderName;
  const description = (front.fields.description ?? '').slice(0, MAX_DESCRIPTION_CHARS);
  const roles = front.fields.roles ? parseList(front.fields.roles) : null;
  const warnings = [
    !front.fields.description ? 'no description in its front matter' : null,
    !SKILL_NAME.test(name) ? `its name "${name}" is not a-z, 0-9, . _ -` : null,
  ].filter(Boolean);
  return { name: SKILL_NAME.test(name) ? name : folderName, description, dir, roles, warning: warnings.length > 0 ? warnings.join('; ') : null };
}

/** The body of a skill (SKILL.md without its front matter), or one of its other files; and the list of those files. */
export function loadSkill(skill: Skill, file?: string): { text: string; files: string[] } | { error: string } {
  const files = otherFiles(skill.dir);
  if (file === undefined) {
    const text = fs.readFileSync(path.join(skill.dir, 'SKILL.md'), 'utf8');
    return { text: frontMatter(text)?.body ?? text, files };
  }
  if (!files.includes(file)) return { error: `skill ${skill.name} has no file ${JSON.stringify(file)}; its files: ${files.join(', ') || '(none)'}` };
  const target = path.join(skill.dir, file);
  const stat = fs.lstatSync(target);
  if (!stat.isFile() || stat.size > MAX_SKILL_BYTES) return { error: `${file} is not a regular file under ${MAX_SKILL_BYTES} bytes` };
  return { text: fs.readFileSync(target, 'utf8'), files };
}

/** Regular files in a skill's folder, relative, besides SKILL.md (two levels deep; symlinks are not followed). */
function otherFiles(dir: string, prefix = '', depth = 0): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile() && relative !== 'SKILL.md') files.push(relative);
    else if (entry.isDirectory() && depth < 1) files.push(...otherFiles(dir, relative, depth + 1));
    if (files.length >= 100) break;
  }
  return files;
}

/**
 * `---\n<YAML>\n---\nbody`: SKILL.md's front matter, read with a YAML parser as the Agent Skills
 * format defines it (folded `>` and literal `|` blocks, comments, quoted strings, lists, nested
 * `metadata`). Scalars come back as text; a list as its items joined by commas (`roles`,
 * `allowed-tools`); a mapping is left out. Front matter that is not YAML is null (the skill is
 * listed with a warning).
 */
function frontMatter(text: string): { fields: Record<string, string>; body: string } | null {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return null;
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1]!, { maxAliasCount: 10 });
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[key.toLowerCase()] = String(value).trim();
    else if (Array.isArray(value)) fields[key.toLowerCase()] = value.map(String).join(', ');
  }
  return { fields, body: match[2]!.trim() };
}

function parseList(value: string): string[] {
  return value
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((item) => item.trim().replace(/^(["'])(.*)\1$/, '$2'))
    .filter(Boolean);
}

/** The catalog for a system prompt: one line per skill. */
export function skillsCatalog(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  const lines = skills.map((skill) => `- ${skill.name}: ${skill.description || '(no description)'}`);
  return `Skills you can load with load_skill {"name"} when a task calls for one (its instructions, and the files it comes with):\n${lines.join('\n')}`;
}
