import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { workspaceFs } from './file-tools.js';
import { defineTool, toolError } from '../contracts/tool.js';
import { searchLines, type SearchFile } from './regex-search.js';
import type { WorkspaceFs } from './workspace-fs.js';

const SKIP = new Set(['node_modules', '.git', '.team']);
const MAX_RESULTS = 500;
/** What grep reads at most: bigger files are skipped, and the search stops at the total. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** A pattern still matching after this long is stopped (its worker thread is terminated). */
const GREP_TIMEOUT_MS = 5_000;

/**
 * Files under a folder, relative to the workspace, skipping node_modules, .git, symlinks and the
 * state folder (by identity, whatever its name). Listing only: every read goes through
 * WorkspaceFs, which refuses a symlink swapped in after this walk saw a folder.
 */
function* walk(files: WorkspaceFs, dir: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const stat = fs.lstatSync(full, { throwIfNoEntry: false });
      if (stat?.isDirectory() && !files.isOffLimits(stat)) yield* walk(files, full);
    } else if (entry.isFile()) yield path.relative(files.root, full);
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
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    const regex = globToRegExp(input.pattern);
    const files = workspaceFs(ctx);
    const matches: string[] = [];
    for (const file of walk(files, files.root)) {
      if (regex.test(file) && (ctx.readable?.(file) ?? true)) matches.push(file);
      if (matches.length >= MAX_RESULTS) break;
    }
    return { content: matches.length ? matches.sort().join('\n') : `no files match ${input.pattern}` };
  },
});

export const grepTool = defineTool({
  name: 'grep',
  description: 'Search workspace files for a regular expression; prints file:line: text (at most 500 matches).',
  input: z.object({ pattern: z.string().min(1).max(1000), path: z.string().optional(), glob: z.string().optional() }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    try {
      new RegExp(input.pattern);
    } catch (error) {
      return toolError(`invalid regular expression: ${(error as Error).message}`);
    }
    const files = workspaceFs(ctx, input.path ?? '.');
    // In an additional directory (permissions.additionalDirectories) names are shown, and judged by the rules, absolute.
    const shown = (file: string): string => (files.root === fs.realpathSync(ctx.workspace) ? file : path.join(files.root, file));
    let start: string;
    try {
      const parts = files.parts(input.path ?? '.');
      start = path.join(files.root, ...parts);
    } catch (error) {
      return toolError((error as Error).message);
    }
    const filter = input.glob ? globToRegExp(input.glob) : null;
    const startStat = fs.lstatSync(start, { throwIfNoEntry: false });
    if (!startStat) return toolError(`${input.path}: no such file or folder`);
    if (startStat.isDirectory() && files.isOffLimits(startStat))
      return toolError("the team's state folder is not for file tools: use the task and message tools");
    const names = startStat.isDirectory() ? [...walk(files, start)] : [path.relative(files.root, start)];
    const texts: SearchFile[] = [];
    let total = 0;
    for (const file of names) {
      if (filter && !filter.test(file)) continue;
      // A file a Read (or Grep) rule denies or asks for never shows, neither its name nor its lines.
      if (!(ctx.readable?.(shown(file)) ?? true)) continue;
      try {
        const { text, size } = files.read(file, 0, MAX_FILE_BYTES);
        if (size > MAX_FILE_BYTES) continue;
        total += size;
        texts.push({ file: shown(file), text });
      } catch {
        continue;
      }
      if (total >= MAX_TOTAL_BYTES) break;
    }
    const outcome = await searchLines(input.pattern, texts, MAX_RESULTS, GREP_TIMEOUT_MS);
    switch (outcome.kind) {
      case 'hits':
        return { content: outcome.hits.length ? outcome.hits.join('\n') : 'no matches' };
      case 'timeout':
        return toolError(`the pattern ${JSON.stringify(input.pattern)} took longer than ${GREP_TIMEOUT_MS} ms (nested quantifiers backtrack): simplify it`);
      case 'error':
        return toolError(`grep failed: ${outcome.message}`);
    }
  },
});
