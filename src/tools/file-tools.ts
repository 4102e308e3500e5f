import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { defineTool, toolError } from './tool.js';
import { resolveInWorkspace } from './workspace.js';

const MAX_READ = 256 * 1024;

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a text file in the workspace (up to 256 KiB from an optional byte offset).',
  input: z.object({ path: z.string().min(1), offset: z.number().int().nonnegative().optional() }),
  mutating: false,
  run: async (input, ctx) => {
    const resolved = resolveInWorkspace(ctx.workspace, input.path);
    if ('error' in resolved) return toolError(resolved.error);
    try {
      const fd = fs.openSync(resolved.path, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        const buffer = Buffer.alloc(Math.min(MAX_READ, Math.max(0, size - (input.offset ?? 0))));
        const length = fs.readSync(fd, buffer, 0, buffer.length, input.offset ?? 0);
        const more = (input.offset ?? 0) + length < size ? `\n…(${size - (input.offset ?? 0) - length} more bytes: read again with offset ${(input.offset ?? 0) + length})` : '';
        return { content: buffer.subarray(0, length).toString('utf8') + more };
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      return toolError(`cannot read ${input.path}: ${(error as Error).message}`);
    }
  },
});

export const writeFileTool = defineTool({
  name: 'write_file',
  description: 'Write a whole file in the workspace (created with its folders; replaced atomically if it exists).',
  input: z.object({ path: z.string().min(1), content: z.string().max(4 * 1024 * 1024) }),
  mutating: true,
  run: async (input, ctx) => {
    const resolved = resolveInWorkspace(ctx.workspace, input.path);
    if ('error' in resolved) return toolError(resolved.error);
    try {
      fs.mkdirSync(path.dirname(resolved.path), { recursive: true });
      writeFileAtomicSync(resolved.path, input.content);
      return { content: `wrote ${Buffer.byteLength(input.content)} bytes to ${input.path}` };
    } catch (error) {
      return toolError(`cannot write ${input.path}: ${(error as Error).message}`);
    }
  },
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description: 'Replace one exact, unique occurrence of old_text with new_text in a workspace file.',
  input: z.object({ path: z.string().min(1), old_text: z.string().min(1), new_text: z.string() }),
  mutating: true,
  run: async (input, ctx) => {
    const resolved = resolveInWorkspace(ctx.workspace, input.path);
    if ('error' in resolved) return toolError(resolved.error);
    let text: string;
    try {
      text = fs.readFileSync(resolved.path, 'utf8');
    } catch (error) {
      return toolError(`cannot read ${input.path}: ${(error as Error).message}`);
    }
    const first = text.indexOf(input.old_text);
    if (first === -1) return toolError(`old_text was not found in ${input.path}; read the file and copy the text exactly`);
    if (text.indexOf(input.old_text, first + 1) !== -1) return toolError(`old_text occurs more than once in ${input.path}; include more context to make it unique`);
    writeFileAtomicSync(resolved.path, text.slice(0, first) + input.new_text + text.slice(first + input.old_text.length));
    return { content: `edited ${input.path}` };
  },
});
