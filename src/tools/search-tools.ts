import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, toolError } from './tool.js';
import { resolveInWorkspace } from './workspace.js';

const SKIP = new Set(['node_modules', '.git', '.team']);
const MAX_RESULTS = 500;

/** Files under a folder, relative to the workspace, skipping node_modules, .git and .team. */
function* walk(root: string, dir: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(root, full);
    else if (entry.isFile()) yield path.relative(root, full);
  }
}

/** `**` any folders, `*` any characters but '/', `?` one character. */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      source += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export const globTool = defineTool({
  name: 'glob',
  description: "List workspace files matching a glob such as 'src/**/*.ts' (node_modules, .git and .team skipped).",
  input: z.object({ pattern: z.string().min(1).max(500) }),
  mutating: false,
  run: async (input, ctx) => {
    const regex = globToRegExp(input.pattern);
    const root = fs.realpathSync(ctx.workspace);
    const matches: string[] = [];
    for (const file of walk(root, root)) {
      if (regex.test(file)) matches.push(file);
      if (matches.length >= MAX_RESULTS) break;
    }
    return { content: matches.length ? matches.sort().join('\n') : `no files match ${input.pattern}` };
  },
});

export const grepTool = defineTool({
  name: 'grep',
  description: 'Search workspace files for a regular expression; prints file:line: text (at most 500 matches).',
  input: z.object({ pattern: z.string().min(1).max(1000), path: z.string().optional(), glob: z.string().optional() }),
  mutating: false,
  run: async (input, ctx) => {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern);
    } catch (error) {
      return toolError(`invalid regular expression: ${(error as Error).message}`);
    }
    const resolved = resolveInWorkspace(ctx.workspace, input.path ?? '.');
    if ('error' in resolved) return toolError(resolved.error);
    const root = fs.realpathSync(ctx.workspace);
    const filter = input.glob ? globToRegExp(input.glob) : null;
    const files = fs.statSync(resolved.path).isDirectory() ? [...walk(root, resolved.path)] : [path.relative(root, resolved.path)];
    const hits: string[] = [];
    for (const file of files) {
      if (filter && !filter.test(file)) continue;
      let text: string;
      try {
        text = fs.readFileSync(path.join(root, file), 'utf8');
      } catch {
        continue;
      }
      text.split('\n').forEach((line, index) => {
        if (hits.length < MAX_RESULTS && regex.test(line)) hits.push(`${file}:${index + 1}: ${line.slice(0, 300)}`);
      });
      if (hits.length >= MAX_RESULTS) break;
    }
    return { content: hits.length ? hits.join('\n') : 'no matches' };
  },
});
