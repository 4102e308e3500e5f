import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Logger } from '../log/logger.js';
import type { HookEvent, HookGroup } from '../settings/settings.js';
import type { Notice } from '../contracts/notifications.js';

/** The teammate hooks run for: what their payloads and environment say of it. */
export interface GateIdentity {
  readonly name: string;
  readonly role: string;
  readonly workspace: string;
  readonly stateDir: string;
  readonly sessionId: string;
  readonly taskId: () => number | null;
  /** Where the tools work now: the workspace, or the task's worktree. */
  readonly root: () => string;
  /** Folders outside it the file tools may change too (permissions.additionalDirectories), resolved. */
  readonly extraRoots?: () => readonly string[];
}

/** Bytes kept of a hook's stdout and of its stderr: a hook that prints megabytes cannot flood a teammate. */
export const HOOK_OUTPUT_BYTES = 64 * 1024;

/** What a hook is told, on stdin as JSON (Claude Code's field names where they exist). */
export interface HookPayload {
  readonly hook_event_name: HookEvent;
  readonly session_id: string;
  /** The teammate's saved conversation (in the state folder, out of a sandboxed hook's sight, as a transcript is in Claude Code's). */
  readonly transcript_path: string;
  readonly cwd: string;
  /** The mode of the teammate's settings: default, acceptEdits, plan, bypassPermissions, dontAsk. */
  readonly permission_mode?: string;
  readonly teammate: string;
  readonly role: string;
  readonly task_id: number | null;
  /** Claude Code's name and input keys for the tools that have one (claude-tools.ts); teamd's own otherwise. */
  readonly tool_name?: string;
  readonly tool_input?: unknown;
  /** teamd's name of the tool, when the payload carries Claude Code's. */
  readonly teamd_tool?: string;
  readonly tool_response?: Readonly<Record<string, unknown>>;
  readonly prompt?: string;
  /** Notification: what the teammate waits for, and Claude Code's kind of notification. */
  readonly message?: string;
  readonly notification_type?: string;
  /** Notification of a team event (a failed task, a stuck board, a final report, a plan waiting): the notice as webhooks get it. */
  readonly notice?: Notice;
  /** SessionStart: how the session began; SessionEnd: why it ended. */
  readonly source?: string;
  readonly reason?: string;
  /** SubagentStop: whether a Stop hook already continued it (never, in teamd), and which helper ended. */
  readonly stop_hook_active?: boolean;
  readonly description?: string;
  /** PreCompact: what set it off (`auto`), and the instructions of a manual one (none in teamd). */
  readonly trigger?: string;
  readonly custom_instructions?: string;
}

/** Who a hook hears from: the teammate, its session and workspace, and the task in hand. */
export interface HookSource {
  readonly name: string;
  readonly role: string;
  readonly workspace: string;
  readonly stateDir: string;
  readonly sessionId: string;
  readonly taskId: () => number | null;
  /** Where the tools work now (the workspace, or the task's worktree): the payload's cwd. */
  readonly root?: () => string;
}

/** The event a hook reads on stdin: who and where, then what the event adds. */
export function hookPayload(source: HookSource, event: HookPayload['hook_event_name'], extra: Partial<HookPayload> = {}): HookPayload {
  return {
    hook_event_name: event,
    session_id: source.sessionId,
    transcript_path: path.join(source.stateDir, 'sessions', `${source.name}.jsonl`),
    cwd: source.root?.() ?? source.workspace,
    teammate: source.name,
    role: source.role,
    task_id: source.taskId(),
    ...extra,
  };
}

export interface HookRun {
  readonly command: string;
  readonly code: number | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** What the hooks of one event decided, together. */
export interface HookOutcome {
  /** An exit 2 (or `decision: "block"`): the call is blocked, the turn continues; `reason` goes to the model. */
  readonly block: { readonly reason: string; readonly command: string } | null;
  /** PreToolUse: a hook's `permissionDecision`, the strictest of them (deny over ask over allow). */
  readonly permission: { readonly decision: 'allow' | 'deny' | 'ask'; readonly reason: string } | null;
  /** PreToolUse: the input a hook replaced (the last one that did). */
  readonly updatedInput: unknown;
  /**
   * Context for the model, as Claude Code adds it: `hookSpecificOutput.additionalContext`, and for
   * UserPromptSubmit and SessionStart a hook's plain stdout (exit 0).
   */
  readonly context: readonly string[];
  readonly runs: readonly HookRun[];
}

/** Events whose hooks' plain stdout (exit 0) goes to the model as context, as in Claude Code. */
const STDOUT_CONTEXT_EVENTS: ReadonlySet<string> = new Set(['UserPromptSubmit', 'SessionStart']);
/** The most of one hook's context the model gets. */
const MAX_CONTEXT_CHARS = 10_000;

export interface HookEnvironment {
  readonly workspace: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /**
   * Runs a hook's shell line where the teammate's commands run (its sandbox: the hook reads a
   * payload the model wrote); absent: `/bin/sh -c` as the teammate.
   */
  readonly launch?: (command: string) => { readonly file: string; readonly args: readonly string[]; readonly env: NodeJS.ProcessEnv };
}

/**
 * Runs the hooks of an event whose matcher fits `subject` (a tool name; events without tools
 * match every group), one after the other, each a shell command in the workspace with the
 * payload on stdin, killed with its process group at its timeout. Exit 0: go on, its JSON output
 * may decide; exit 2: block with its stderr; anything else: a warning, and the call goes on.
 */
export async function runHooks(
  groups: readonly HookGroup[] | undefined,
  subject: readonly string[] | null,
  payload: HookPayload,
  deps: HookEnvironment,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<HookOutcome> {
  const outcome: { block: HookOutcome['block']; permission: HookOutcome['permission']; updatedInput: unknown; context: string[]; runs: HookRun[] } = {
    block: null,
    permission: null,
    updatedInput: undefined,
    context: [],
    runs: [],
  };
  for (const group of groups ?? []) {
    if (group.matcher && subject !== null && !subject.some((name) => group.matcher!.test(name))) continue;
    for (const hook of group.hooks) {
      const run = await runOne(hook.command, hook.timeoutMs, payload, deps, extraEnv);
      outcome.runs.push(run);
      const log = { hook: hook.command, event: payload.hook_event_name, taskId: payload.task_id, tool: payload.tool_name, code: run.code };
      if (run.timedOut) {
        deps.logger.warn({ ...log, timeoutMs: hook.timeoutMs }, 'hook killed at its timeout; going on');
        continue;
      }
      if (run.code === 2) {
        deps.logger.info({ ...log, reason: run.stderr.slice(0, 500) }, 'hook blocked');
        outcome.block ??= { reason: run.stderr.trim() || `blocked by the hook ${hook.command}`, command: hook.command };
        continue;
      }
      if (run.code !== 0) {
        deps.logger.warn({ ...log, stderr: run.stderr.slice(0, 500) }, 'hook failed; going on');
        continue;
      }
      if (!readJsonOutput(run, outcome, deps.logger, log) && STDOUT_CONTEXT_EVENTS.has(payload.hook_event_name) && run.stdout.trim())
        outcome.context.push(run.stdout.trim().slice(0, MAX_CONTEXT_CHARS));
    }
  }
  return outcome;
}

const STRICTNESS = { allow: 0, ask: 1, deny: 2 } as const;

/** Reads a hook's JSON output into the outcome; false when its stdout is not JSON (then it may be plain context). */
function readJsonOutput(
  run: HookRun,
  outcome: { block: HookOutcome['block']; permission: HookOutcome['permission']; updatedInput: unknown; context: string[] },
  logger: Logger,
  log: object,
): boolean {
  const text = run.stdout.trim();
  if (!text.startsWith('{')) return false;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    logger.warn(log, 'hook printed JSON that does not parse; ignored');
    return true;
  }
  const specific = (typeof json.hookSpecificOutput === 'object' && json.hookSpecificOutput !== null ? json.hookSpecificOutput : {}) as Record<string, unknown>;
  const reasonValue = specific.permissionDecisionReason ?? json.permissionDecisionReason ?? json.reason;
  const reason = typeof reasonValue === 'string' ? reasonValue : '';
  if (json.decision === 'block') outcome.block ??= { reason: reason || `blocked by the hook ${run.command}`, command: run.command };
  const decision = specific.permissionDecision ?? json.permissionDecision;
  if (decision === 'allow' || decision === 'deny' || decision === 'ask') {
    if (!outcome.permission || STRICTNESS[decision] > STRICTNESS[outcome.permission.decision])
      outcome.permission = { decision, reason: reason || `the hook ${run.command} said ${decision}` };
  }
  const updated = specific.updatedInput ?? json.updatedInput;
  if (updated !== undefined) outcome.updatedInput = updated;
  if (typeof specific.additionalContext === 'string' && specific.additionalContext.trim())
    outcome.context.push(specific.additionalContext.trim().slice(0, MAX_CONTEXT_CHARS));
  return true;
}

function runOne(command: string, timeoutMs: number, payload: HookPayload, deps: HookEnvironment, extraEnv: NodeJS.ProcessEnv): Promise<HookRun> {
  return new Promise((resolve) => {
    const launch = deps.launch?.(command) ?? { file: '/bin/sh', args: ['-c', command], env: deps.env };
    const child = spawn(launch.file, launch.args, {
      cwd: deps.workspace,
      env: { ...launch.env, ...extraEnv, TEAMD_HOOK_EVENT: payload.hook_event_name, TEAMD_TEAMMATE: payload.teammate, CLAUDE_PROJECT_DIR: deps.workspace },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const out = boundedCollector();
    const err = boundedCollector();
    child.stdout.on('data', out.add);
    child.stderr.on('data', err.add);
    child.stdin.on('error', () => {}); // a hook that does not read its stdin
    child.stdin.end(JSON.stringify(payload));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    const finish = (code: number | null): void => {
      clearTimeout(timer);
      // Whatever it started in the background goes with it.
      killGroup(child.pid);
      resolve({ command, code, timedOut, stdout: out.text(), stderr: err.text() });
    };
    let exitCode: number | null = null;
    // The hook is done when its shell exits: what it left running in the background goes then, so its pipes close.
    child.once('exit', (code) => {
      exitCode = code;
      killGroup(child.pid);
    });
    child.once('error', () => finish(null));
    child.once('close', (code) => finish(code ?? exitCode));
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function boundedCollector(): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  return {
    add: (chunk) => {
      const room = HOOK_OUTPUT_BYTES - size;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(kept);
      size += kept.length;
      dropped += chunk.length - kept.length;
    },
    text: () => `${Buffer.concat(chunks).toString('utf8')}${dropped > 0 ? `\n… [${dropped} more bytes left out]` : ''}`,
  };
}
