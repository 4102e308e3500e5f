import path from 'node:path';
import { callPath, commandsOf, coversCommand, parseRule, ruleCovers, type CallView, type Rule } from './rules.js';

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface PermissionRules {
  readonly allow: readonly Rule[];
  readonly deny: readonly Rule[];
  readonly ask: readonly Rule[];
  readonly mode: PermissionMode;
}

export function parseRules(raw: {
  allow?: readonly string[];
  deny?: readonly string[];
  ask?: readonly string[];
  defaultMode?: PermissionMode;
}): PermissionRules {
  return {
    allow: (raw.allow ?? []).map(parseRule),
    deny: (raw.deny ?? []).map(parseRule),
    ask: (raw.ask ?? []).map(parseRule),
    mode: raw.defaultMode ?? 'default',
  };
}

export type Decision =
  { readonly kind: 'allow'; readonly why: string } | { readonly kind: 'deny'; readonly why: string } | { readonly kind: 'ask'; readonly why: string };

/** What each tool does, for the modes: reading, changing files, running commands, or working with the team. */
const READS = new Set(['read_file', 'glob', 'grep', 'list_tasks', 'get_task', 'job_output', 'list_crons', 'load_skill', 'list_teammates']);
const EDITS = new Set(['write_file', 'edit_file']);
/** Coordination through the board and the mailboxes: what a teammate is for. No mode asks for these; rules still apply. */
const TEAM = new Set([
  'claim_task',
  'complete_task',
  'fail_task',
  'create_task',
  'send_message',
  'broadcast',
  'idle',
  'submit_plan',
  'create_worktree',
  'keep_worktree',
  'job_kill',
  'todo_write',
  'task',
  'remember',
  'schedule_cron',
  'cancel_cron',
  'connect_mcp',
  // The lead agent's: staffing the team and answering it is what a lead is for.
  'cancel_task',
  'spawn_teammate',
  'shutdown_teammate',
  'review_plan',
  'answer_permission',
  'report',
]);

/**
 * The decision for one call. Deny wins over ask, ask over allow; a compound bash line is allowed
 * by rules only when every command in it is. Writes outside the workspace or into the state
 * folder are denied whatever the rules and the mode say. What no rule decides follows the mode:
 * `default` allows reads and asks for the rest, `acceptEdits` allows edits too, `plan` allows
 * only reads, `bypassPermissions` allows everything.
 */
export function decide(call: CallView & { readonly stateDir: string; readonly extraRoots?: readonly string[] }, rules: PermissionRules): Decision {
  const guard = hardLimit(call);
  if (guard) return { kind: 'deny', why: guard };
  const denied = rules.deny.find((rule) => ruleCovers(rule, call, true) !== 'none');
  const unseen = (denied ?? rules.ask.length > 0) && unseenRun(call) ? UNSEEN : '';
  if (denied) return { kind: 'deny', why: `denied by the rule ${denied.text}${unseen}` };
  const asked = rules.ask.find((rule) => ruleCovers(rule, call, true) !== 'none');
  if (asked) return { kind: 'ask', why: `the rule ${asked.text} asks for approval${unseen}` };
  const allowed = allowedByRules(call, rules.allow);
  if (allowed) return { kind: 'allow', why: allowed };
  return byMode(call.tool, rules.mode);
}

const UNSEEN =
  ': the line runs something its text does not show (a variable or a substitution as the program, eval of a variable, a script read from standard input), which the rule might cover';

/** A bash line whose text does not show what it runs: every command rule is taken to cover it (fail closed). */
function unseenRun(call: CallView): boolean {
  return call.tool === 'bash' && commandsOf(call).opaque;
}

/** Allowed when one rule covers the whole call, or (bash) every simple command is covered by some rule. */
function allowedByRules(call: CallView, allow: readonly Rule[]): string | null {
  const whole = allow.find((rule) => ruleCovers(rule, call) === 'all');
  if (whole) return `allowed by the rule ${whole.text}`;
  if (call.tool !== 'bash' || typeof call.input.command !== 'string') return null;
  const { commands, opaque, nested, assigns } = commandsOf(call);
  if (opaque || nested || assigns || commands.length < 2) return null;
  const used: string[] = [];
  for (const command of commands) {
    const rule = allow.find(
      (candidate) => candidate.specifier !== null && candidate.tools.includes('bash') && coversCommand(candidate.specifier, command, false),
    );
    if (!rule) return null;
    used.push(rule.text);
  }
  return `allowed by the rules ${[...new Set(used)].join(', ')}`;
}

function byMode(tool: string, mode: PermissionMode): Decision {
  const what = READS.has(tool) ? 'read' : EDITS.has(tool) ? 'edit' : TEAM.has(tool) ? 'team' : 'other';
  if (what === 'team') return { kind: 'allow', why: 'team tools are allowed in every mode' };
  switch (mode) {
    case 'bypassPermissions':
      return { kind: 'allow', why: 'allowed by the mode bypassPermissions' };
    case 'plan':
      return what === 'read' ? { kind: 'allow', why: 'reads are allowed in the mode plan' } : { kind: 'deny', why: 'the mode plan allows only reads' };
    case 'acceptEdits':
      return what === 'read' || what === 'edit'
        ? { kind: 'allow', why: `${what}s are allowed in the mode acceptEdits` }
        : { kind: 'ask', why: 'no rule allows it and the mode acceptEdits asks' };
    case 'default':
      return what === 'read'
        ? { kind: 'allow', why: 'reads are allowed in the mode default' }
        : { kind: 'ask', why: 'no rule allows it and the mode default asks' };
  }
}

function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * What no rule can allow: a file tool writing outside the workspace and the additional
 * directories (permissions.additionalDirectories, `extraRoots`), or into the state folder.
 */
function hardLimit(call: CallView & { readonly stateDir: string; readonly extraRoots?: readonly string[] }): string | null {
  if (!EDITS.has(call.tool)) return null;
  const relative = callPath(call);
  if (relative === null) {
    const raw = typeof call.input.path === 'string' ? path.resolve(call.workspace, call.input.path) : null;
    const extra = raw === null ? undefined : call.extraRoots?.find((root) => inside(raw, root));
    if (raw === null || extra === undefined) return `${call.tool} may only change files inside the workspace ${call.workspace}`;
    if (inside(raw, call.stateDir)) return `${call.tool} may not change the team's state folder ${call.stateDir}`;
    return null;
  }
  // A task's worktree lives in the state folder: working in it, the tool may change it and nothing else there.
  if (inside(call.workspace, call.stateDir)) return null;
  if (inside(path.resolve(call.workspace, relative), call.stateDir)) return `${call.tool} may not change the team's state folder ${call.stateDir}`;
  return null;
}
