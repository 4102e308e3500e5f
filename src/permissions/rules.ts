import path from 'node:path';
import ignore from 'ignore';
import { splitShellCommand } from './shell-split.js';

/**
 * A permission rule as Claude Code writes it: `Tool` or `Tool(specifier)`. Tool names are
 * Claude Code's (Bash, Read, Edit, Write, Glob, Grep) or teamd's own (bash, read_file, …,
 * mcp__server__tool). A Bash specifier is a command, or a prefix ending in `:*`; a file tool's is
 * a gitignore-style pattern relative to the workspace.
 */
export interface Rule {
  readonly text: string;
  readonly tools: readonly string[];
  readonly specifier: string | null;
}

/** Claude Code's tool names, and the teamd tools each covers (Read rules cover the tools that read files; Edit rules, the ones that change them). */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  Bash: ['bash'],
  Read: ['read_file', 'glob', 'grep'],
  Edit: ['edit_file', 'write_file'],
  Write: ['write_file'],
  MultiEdit: ['edit_file'],
  Glob: ['glob'],
  Grep: ['grep'],
};

/** The name Claude Code gives a teamd tool, for hook matchers written for Claude Code (`Bash`, `Edit|Write`). */
const CLAUDE_NAMES: Readonly<Record<string, string>> = {
  bash: 'Bash',
  read_file: 'Read',
  write_file: 'Write',
  edit_file: 'Edit',
  glob: 'Glob',
  grep: 'Grep',
};

/** The names a hook matcher is tried against: teamd's, and Claude Code's where it has one. */
export function toolNames(tool: string): string[] {
  const claude = CLAUDE_NAMES[tool];
  return claude ? [tool, claude] : [tool];
}

const RULE = /^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$/s;
/** Claude Code's rule for every tool of one MCP server: `mcp__server`, or `mcp__server__*`. */
const MCP_SERVER_WIDE = /^mcp__([A-Za-z0-9_-]+?)(?:__\*)?$/;

/** Parses one rule; a malformed one is an error naming it (the settings are refused as a whole). */
export function parseRule(text: string): Rule {
  const server = MCP_SERVER_WIDE.exec(text.trim());
  if (server && !server[1]!.includes('__')) return { text: text.trim(), tools: [`mcp__${server[1]}`], specifier: null };
  const match = RULE.exec(text.trim());
  if (!match) throw new Error(`${JSON.stringify(text)} is not a rule: write Tool or Tool(specifier), e.g. Bash(npm test:*) or Edit(src/**)`);
  const [, name, specifier] = match;
  if (specifier !== undefined && specifier.trim() === '')
    throw new Error(`${JSON.stringify(text)} has an empty specifier: leave out the parentheses to match every call`);
  return { text: text.trim(), tools: ALIASES[name!] ?? [name!], specifier: specifier === undefined ? null : specifier.trim() };
}

/** A tool call as the rules see it. */
export interface CallView {
  readonly tool: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly workspace: string;
}

/** The file a file tool touches, relative to the workspace (null when outside it or none). */
export function callPath(call: CallView): string | null {
  const raw = typeof call.input.path === 'string' ? call.input.path : typeof call.input.pattern === 'string' && call.tool === 'glob' ? '.' : null;
  if (raw === null) return null;
  const relative = path.relative(call.workspace, path.resolve(call.workspace, raw));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative === '' ? '.' : relative;
}

/**
 * Whether a rule covers one simple command (bash) or the call (other tools). A bash rule
 * `npm test:*` covers `npm test` and `npm test -- --watch`, not `npm tester`; `git status`
 * covers exactly that command.
 */
function coversCommand(specifier: string, command: string): boolean {
  const normalized = command.replace(/\s+/g, ' ').trim();
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).trim();
    return normalized === prefix || normalized.startsWith(`${prefix} `);
  }
  return normalized === specifier.replace(/\s+/g, ' ').trim();
}

function coversPath(specifier: string, relative: string): boolean {
  // gitignore semantics (the `ignore` package): `.env` anywhere, `src/**`, `/build` at the top.
  const pattern = specifier.startsWith('./') ? `/${specifier.slice(2)}` : specifier;
  if (relative === '.') return false;
  return ignore().add(pattern).ignores(relative);
}

export type Coverage = 'all' | 'some' | 'none';

/**
 * How much of a call a rule covers. For a compound bash line: `all` when the rule covers every
 * simple command, `some` when it covers at least one (enough for deny and ask), `none` otherwise.
 */
export function ruleCovers(rule: Rule, call: CallView): Coverage {
  if (!rule.tools.some((tool) => tool === call.tool || (tool.startsWith('mcp__') && call.tool.startsWith(`${tool}__`)))) return 'none';
  if (rule.specifier === null) return 'all';
  if (call.tool === 'bash') {
    const line = typeof call.input.command === 'string' ? call.input.command : '';
    const { commands, opaque } = splitShellCommand(line);
    const covered = commands.filter((command) => coversCommand(rule.specifier!, command)).length;
    if (covered === 0) return 'none';
    return covered === commands.length && !opaque ? 'all' : 'some';
  }
  const relative = callPath(call);
  if (relative === null) return 'none';
  return coversPath(rule.specifier, relative) ? 'all' : 'none';
}
