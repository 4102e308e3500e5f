import path from 'node:path';

/**
 * teamd's tools as Claude Code names them in a hook's payload, so that a hook script written for
 * Claude Code reads what it expects (`.tool_input.file_path` of a `Write`) and a hook's
 * `updatedInput`, in Claude Code's shape, comes back to teamd's. docs/coming-from-claude-code.md
 * has the table. Tools Claude Code does not have keep their own names and inputs.
 */
interface ToolShape {
  readonly name: string;
  /** teamd's input as Claude Code's. */
  readonly toClaude: (input: Readonly<Record<string, unknown>>, root: string) => Record<string, unknown>;
  /** Claude Code's input (a hook's updatedInput) as teamd's. */
  readonly toTeamd: (input: Readonly<Record<string, unknown>>) => Record<string, unknown>;
}

const absolute = (file: unknown, root: string): unknown => (typeof file === 'string' ? path.resolve(root, file) : file);
const defined = (entries: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));

const SHAPES: Readonly<Record<string, ToolShape>> = {
  bash: {
    name: 'Bash',
    toClaude: (input) => defined({ command: input.command, timeout: input.timeout_ms, run_in_background: input.run_in_background }),
    toTeamd: (input) => defined({ command: input.command, timeout_ms: input.timeout, run_in_background: input.run_in_background }),
  },
  read_file: {
    name: 'Read',
    toClaude: (input, root) => defined({ file_path: absolute(input.path, root), offset: input.offset }),
    toTeamd: (input) => defined({ path: input.file_path, offset: input.offset }),
  },
  write_file: {
    name: 'Write',
    toClaude: (input, root) => defined({ file_path: absolute(input.path, root), content: input.content }),
    toTeamd: (input) => defined({ path: input.file_path, content: input.content }),
  },
  edit_file: {
    name: 'Edit',
    toClaude: (input, root) => defined({ file_path: absolute(input.path, root), old_string: input.old_text, new_string: input.new_text, replace_all: false }),
    toTeamd: (input) => defined({ path: input.file_path, old_text: input.old_string, new_text: input.new_string }),
  },
  glob: {
    name: 'Glob',
    toClaude: (input) => defined({ pattern: input.pattern }),
    toTeamd: (input) => defined({ pattern: input.pattern }),
  },
  grep: {
    name: 'Grep',
    toClaude: (input) => defined({ pattern: input.pattern, path: input.path, glob: input.glob }),
    toTeamd: (input) => defined({ pattern: input.pattern, path: input.path, glob: input.glob }),
  },
  task: {
    name: 'Task',
    toClaude: (input) => defined({ description: input.description, prompt: input.prompt, subagent_type: 'general-purpose' }),
    toTeamd: (input) => defined({ description: input.description, prompt: input.prompt }),
  },
  todo_write: {
    name: 'TodoWrite',
    toClaude: (input) => defined({ todos: input.items }),
    toTeamd: (input) => defined({ items: input.todos }),
  },
};

const asRecord = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** A call as a Claude Code hook sees it: `{tool_name: "Write", tool_input: {file_path, content}}`. */
export function claudeToolCall(tool: string, input: unknown, root: string): { tool_name: string; tool_input: unknown } {
  const shape = SHAPES[tool];
  return shape ? { tool_name: shape.name, tool_input: shape.toClaude(asRecord(input), root) } : { tool_name: tool, tool_input: input };
}

/**
 * A hook's `updatedInput` for a tool with a Claude Code name, read in Claude Code's shape and
 * put back in teamd's: keys the hook left out keep the call's own values.
 */
export function teamdToolInput(tool: string, updated: unknown, original: unknown): unknown {
  const shape = SHAPES[tool];
  if (!shape) return updated;
  return { ...asRecord(original), ...shape.toTeamd(asRecord(updated)) };
}

/** A tool's result as Claude Code's `tool_response` carries it for the tools hooks most read, beside teamd's content and error flag. */
export function claudeToolResponse(
  tool: string,
  input: unknown,
  root: string,
  result: { readonly content: string; readonly isError: boolean },
): Record<string, unknown> {
  const base = { content: result.content, is_error: result.isError };
  const file = asRecord(input).path;
  if ((tool === 'write_file' || tool === 'edit_file') && typeof file === 'string')
    return { ...base, filePath: path.resolve(root, file), success: !result.isError };
  if (tool === 'bash') return { ...base, stdout: result.content, stderr: '', interrupted: false };
  return base;
}
