import os from 'node:os';
import path from 'node:path';
import ignore from 'ignore';
import { shellCommands, type ShellCommands } from './shell-commands.js';

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
  /** Where `~/` in a rule points (the teammate's HOME); default: the process's home. */
  readonly home?: string | undefined;
}

/** The file a file tool touches, relative to the workspace (null when outside it or none). */
export function callPath(call: CallView): string | null {
  const raw = typeof call.input.path === 'string' ? call.input.path : typeof call.input.pattern === 'string' && call.tool === 'glob' ? '.' : null;
  if (raw === null) return null;
  const relative = path.relative(call.workspace, path.resolve(call.workspace, raw));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative === '' ? '.' : relative;
}

/** A command as rules compare it: the program, its leading flags as a set, and the words after them. */
interface CommandShape {
  readonly name: string;
  readonly flags: ReadonlySet<string>;
  readonly rest: readonly string[];
}

/** Long flags and upper-case short ones that mean a short flag, for the tools rules most often name. */
const FLAG_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  rm: { '--recursive': 'r', '-R': 'r', '--force': 'f', '--dir': 'd', '--verbose': 'v' },
  cp: { '--recursive': 'r', '-R': 'r', '--force': 'f' },
  chmod: { '--recursive': 'R' },
  chown: { '--recursive': 'R' },
  curl: { '--output': 'o', '--silent': 's', '--location': 'L' },
  git: { '--force': 'f' },
};

/**
 * A command's shape: `rm -rf x`, `rm -fr x`, `rm -r -f x` and `rm --recursive --force x` are one
 * shape. Only the flags right after the program's name are gathered (`git push --force` keeps its
 * `--force` among the words); a flag that takes a value is not known, so its value ends the flags.
 */
function shapeOf(words: readonly string[]): CommandShape {
  const [rawName = '', ...tail] = words;
  const name = rawName.slice(rawName.lastIndexOf('/') + 1);
  const aliases = FLAG_ALIASES[name] ?? {};
  const flags = new Set<string>();
  let at = 0;
  for (; at < tail.length; at++) {
    const word = tail[at]!;
    if (aliases[word] !== undefined) flags.add(aliases[word]);
    else if (/^-[A-Za-z0-9]+$/.test(word)) for (const letter of word.slice(1)) flags.add(aliases[`-${letter}`] ?? letter);
    else if (/^--[A-Za-z0-9][A-Za-z0-9-]*$/.test(word)) flags.add(word);
    else break;
  }
  return { name, flags, rest: tail.slice(at) };
}

/** The words of a rule's command (`npm test` of `npm test:*`), read as the shell would. */
function ruleWords(specifier: string): { words: readonly string[]; prefix: boolean } {
  const prefix = specifier.endsWith(':*');
  const text = prefix ? specifier.slice(0, -2) : specifier;
  return { words: shellCommands(text).commands[0] ?? [], prefix };
}

/**
 * Whether a rule's command covers one simple command. `npm test:*` covers `npm test`,
 * `npm test -- --watch` and `npm tester` (Claude Code's prefix); `git status` covers exactly that. Flags right after
 * the program compare as a set. `widen` (deny and ask): a command with more flags than the rule
 * names is covered too, so `rm -rf:*` covers `rm -rfv x`; never for allow.
 */
export function coversCommand(specifier: string, command: readonly string[], widen: boolean): boolean {
  const rule = ruleWords(specifier);
  if (rule.words.length === 0) return false;
  const want = shapeOf(rule.words);
  const have = shapeOf(command);
  if (want.name !== have.name) return false;
  const named = [...want.flags].every((flag) => have.flags.has(flag));
  // A prefix rule that names the program alone (`mkdir:*`) lets any flags follow; one that names
  // flags allows exactly those, so `rm -f:*` never allows `rm -rf`. Deny and ask cover more flags too.
  const anyFlags = rule.prefix && want.flags.size === 0 && want.rest.length === 0;
  const flagsFit = widen || anyFlags ? named : named && want.flags.size === have.flags.size;
  if (!flagsFit) return false;
  if (want.rest.length > have.rest.length || (!rule.prefix && want.rest.length !== have.rest.length)) return false;
  // As Claude Code reads a prefix rule, the text before `:*` is a prefix of the command's text:
  // its last word may begin a longer one (`npm run test:*` covers `npm run test:unit`). The
  // program itself is matched whole (`ls:*` is not `lsof`), and so are the words before the last.
  const last = want.rest.length - 1;
  return want.rest.every((word, at) => have.rest[at] === word || (rule.prefix && at === last && have.rest[at]!.startsWith(word)));
}

function coversPath(specifier: string, relative: string): boolean {
  // gitignore semantics (the `ignore` package): `.env` anywhere, `src/**`, `/build` at the top.
  const pattern = specifier.startsWith('./') ? `/${specifier.slice(2)}` : specifier;
  if (relative === '.') return false;
  return ignore().add(pattern).ignores(relative);
}

export type Coverage = 'all' | 'some' | 'none';

/** Each bash call's line read once, whatever number of rules is checked against it (the input object is the call's own). */
const readLines = new WeakMap<object, ShellCommands>();

/** The commands a bash call's line runs. */
export function commandsOf(call: CallView): ShellCommands {
  const known = readLines.get(call.input);
  if (known) return known;
  const parsed = shellCommands(typeof call.input.command === 'string' ? call.input.command : '');
  readLines.set(call.input, parsed);
  return parsed;
}

/**
 * How much of a call a rule covers. For a compound bash line: `all` when the rule covers every
 * simple command, `some` when it covers at least one (enough for deny and ask), `none` otherwise.
 */
export function ruleCovers(rule: Rule, call: CallView, widen = false): Coverage {
  if (!rule.tools.some((tool) => tool === call.tool || (tool.startsWith('mcp__') && call.tool.startsWith(`${tool}__`)))) return 'none';
  if (rule.specifier === null) return 'all';
  if (call.tool === 'bash') {
    const parsed = commandsOf(call);
    // What runs cannot be seen (a variable as the program, eval of one): any command rule might cover it.
    if (parsed.opaque) return 'some';
    const covered = parsed.commands.filter((command) => coversCommand(rule.specifier!, command, widen)).length;
    if (covered === 0) return 'none';
    return covered === parsed.commands.length && !parsed.nested && !parsed.assigns ? 'all' : 'some';
  }
  const relative = callPath(call);
  if (relative !== null) return coversPath(rule.specifier, relative) ? 'all' : 'none';
  // Outside the workspace (an additional directory): the rules that can name such a place.
  const raw = typeof call.input.path === 'string' ? call.input.path : null;
  return raw !== null && coversOutside(rule.specifier, path.resolve(call.workspace, raw), call.home ?? os.homedir()) ? 'all' : 'none';
}

/**
 * A path rule against a file outside the workspace, by Claude Code's path forms: `//abs/**` (from
 * the root), `~/x/**` (from the home), and patterns that match at any depth (`.env`, `*.pem`).
 * Patterns anchored in the workspace (`./x`, `/x`, `src/**`) name nothing outside it.
 */
function coversOutside(specifier: string, absolute: string, home: string): boolean {
  if (specifier.startsWith('//')) return ignore().add(specifier.slice(1)).ignores(absolute.slice(1));
  if (specifier === '~' || specifier.startsWith('~/')) {
    const relative = path.relative(home, absolute);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return false;
    return ignore()
      .add(`/${specifier.slice(2)}`)
      .ignores(relative);
  }
  const body = specifier.startsWith('**/') ? specifier.slice(3) : specifier;
  if (body.includes('/') || specifier.startsWith('./')) return false;
  return ignore().add(specifier).ignores(absolute.slice(1));
}
