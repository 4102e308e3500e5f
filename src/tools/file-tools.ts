import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, toolError, type ToolContext, type ToolResult } from '../contracts/tool.js';
import { readSpilled } from './output-spill.js';
import { WorkspaceFs, WorkspacePathError } from './workspace-fs.js';

const MAX_READ = 256 * 1024;

/**
 * The files a path names, as the file tools see them: the workspace, or the additional directory
 * (permissions.additionalDirectories) an absolute path lies in — each confined the same way, the
 * state folder off limits, whatever its name. A path in none of them is refused by the workspace's.
 */
export function workspaceFs(ctx: Pick<ToolContext, 'workspace' | 'stateDir' | 'extraRoots'>, requested = '.'): WorkspaceFs {
  if (path.isAbsolute(requested)) {
    const absolute = path.resolve(requested);
    const inside = (root: string) => absolute === root || absolute.startsWith(`${root}${path.sep}`);
    const root = inside(path.resolve(ctx.workspace)) ? null : (ctx.extraRoots?.() ?? []).find((dir) => inside(path.resolve(dir)));
    if (root && fs.existsSync(root)) return new WorkspaceFs(root, [ctx.stateDir]);
  }
  return new WorkspaceFs(ctx.workspace, [ctx.stateDir]);
}

/** A refused path or a failed read/write, as the model should see it. */
function failure(action: string, requested: string, error: unknown): ToolResult {
  if (error instanceof WorkspacePathError) return toolError(error.message);
  return toolError(`cannot ${action} ${requested}: ${(error as Error).message}`);
}

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file in the workspace (up to 256 KiB from an optional byte offset). Symlinks are not followed. Also reads a large tool output kept aside, by the teamd-output:<id> reference its preview gives.',
  input: z.object({ path: z.string().min(1), offset: z.number().int().nonnegative().optional() }),
  needsApprovedPlan: false,
  run: async (input, ctx) => {
    const offset = input.offset ?? 0;
    try {
      const { text, size, length } = readSpilled(input.path, ctx, offset, MAX_READ) ?? workspaceFs(ctx, input.path).read(input.path, offset, MAX_READ);
      const more = offset + length < size ? `\n…(${size - offset - length} more bytes: read again with offset ${offset + length})` : '';
      return { content: text + more };
    } catch (error) {
      return failure('read', input.path, error);
    }
  },
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a whole file in the workspace (created with its folders; replaced atomically if it exists).',
  input: z.object({ path: z.string().min(1), content: z.string().max(4 * 1024 * 1024) }),
  needsApprovedPlan: true,
  run: async (input, ctx) => {
    try {
      workspaceFs(ctx, input.path).writeAtomic(input.path, input.content);
      return { content: `wrote ${Buffer.byteLength(input.content)} bytes to ${input.path}` };
    } catch (error) {
      return failure('write', input.path, error);
    }
  },
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description: 'Replace one exact, unique occurrence of old_text with new_text in a workspace file.',
  input: z.object({ path: z.string().min(1), old_text: z.string().min(1), new_text: z.string() }),
  needsApprovedPlan: true,
  run: async (input, ctx) => {
    const files = workspaceFs(ctx, input.path);
    let text: string;
    try {
      text = files.read(input.path).text;
    } catch (error) {
      return failure('read', input.path, error);
    }
    const first = text.indexOf(input.old_text);
    if (first === -1) return toolError(`old_text was not found in ${input.path}; read the file and copy the text exactly`);
    if (text.indexOf(input.old_text, first + 1) !== -1)
      return toolError(`old_text occurs more than once in ${input.path}; include more context to make it unique`);
    try {
      files.writeAtomic(input.path, text.slice(0, first) + input.new_text + text.slice(first + input.old_text.length));
    } catch (error) {
      return failure('write', input.path, error);
    }
    return { content: `edited ${input.path}` };
  },
});
