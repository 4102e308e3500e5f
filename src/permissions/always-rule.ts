import { shellCommands } from './shell-commands.js';

/** Programs whose first argument is a subcommand: their prefix rule keeps it (`Bash(git status:*)`, not `Bash(git:*)`). */
const WITH_SUBCOMMAND = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'npx',
  'bun',
  'docker',
  'kubectl',
  'cargo',
  'go',
  'pip',
  'pip3',
  'uv',
  'make',
  'gh',
  'terraform',
]);
const SUBCOMMAND = /^[A-Za-z][\w:.-]*$/;

/**
 * The allow rule an `approve --always` writes, in Claude Code's forms: for one simple command,
 * its prefix (`Bash(sleep:*)`, `Bash(npm run:*)` for a program with subcommands), which also covers the same
 * call with other arguments; for a compound, nested or opaque line, the exact line (a prefix
 * there would allow more than was seen); for a file tool, the file; null when the call cannot
 * be written as a rule at all (the person adds one by hand).
 */
export function alwaysRule(tool: string, input: unknown, exact = false): string | null {
  const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (tool === 'bash') {
    if (typeof record.command !== 'string') return null;
    const line = record.command.replace(/\s+/g, ' ').trim();
    if (line === '' || line.includes(')')) return null;
    const parsed = shellCommands(line);
    const simple = !parsed.opaque && !parsed.nested && !parsed.assigns && parsed.commands.length === 1 ? parsed.commands[0]! : null;
    if (exact || !simple || simple.length === 0) return `Bash(${line})`;
    const [program, first] = simple;
    const prefix = first !== undefined && WITH_SUBCOMMAND.has(program!) && SUBCOMMAND.test(first) && !first.includes(':') ? `${program} ${first}` : program!;
    // A prefix the rule syntax cannot hold (`:` ends it) keeps the line.
    return prefix.includes(':') ? `Bash(${line})` : `Bash(${prefix}:*)`;
  }
  if (typeof record.path !== 'string' || record.path === '' || record.path.includes(')')) return null;
  return `${tool}(${record.path})`;
}
