import * as z from 'zod';
import type { MailStore } from './mail-store.js';
import type { TaskBoard } from './task-board.js';
import type { ApiTool } from './model.js';
import type { Member } from './roster.js';
import type { TodoItem } from './todos.js';
import type { JobRecord } from './job-record.js';
import type { CronJob, ScheduleFile } from './cron-job.js';

/** What a tool did to the teammate's own state, as data: the runtime acts on it, never on tool names. */
export type ToolEffect =
  | { readonly kind: 'task-claimed'; readonly id: number; readonly claim: number }
  | { readonly kind: 'task-completed'; readonly id: number }
  | { readonly kind: 'task-failed'; readonly id: number }
  | { readonly kind: 'idle' }
  /** report: the lead told the person how the goal goes (final: its report on the goal). */
  | { readonly kind: 'reported'; readonly final: boolean }
  /** todo_write: the teammate's plan for its current task. */
  | { readonly kind: 'todos'; readonly items: readonly TodoItem[] };

export interface ToolResult {
  readonly content: string;
  readonly isError?: boolean;
  readonly effect?: ToolEffect;
  /**
   * Cut short because the teammate is stopping (a command killed by teamd stop): the call is left
   * unanswered in the conversation, as after a kill, and made again when the teammate starts.
   */
  readonly interrupted?: boolean;
}

/** What a tool may touch: handed in by the runtime, never reached through globals. */
export interface ToolContext {
  readonly name: string;
  readonly workspace: string;
  /** Folders outside the workspace the file tools may read and write too (settings permissions.additionalDirectories), absolute. */
  readonly extraRoots?: () => readonly string[];
  /** The state folder: marks the commands this teammate starts, so the daemon can clean up after a crash. */
  readonly stateDir: string;
  readonly board: TaskBoard;
  readonly mailbox: MailStore;
  /** Turns a shell command into a process to spawn: sandboxed where possible, with an environment without secrets. */
  readonly shell: ShellLauncher;
  /** The teammate's background commands (bash with run_in_background); absent where there are none (a one-shot helper). */
  readonly jobs?: JobControl;
  /** The team's schedule (cron.json) and who is on the team, for schedule_cron and its kin. */
  readonly schedule?: { readonly store: ScheduleControl; readonly members: () => readonly Member[] };
  /** The skills this teammate's role may use (load_skill). */
  readonly skills?: { list(): readonly Skill[] };
  /** Long-term memory (remember): one line appended to the team's or this teammate's file. */
  readonly memory?: { remember(scope: MemoryScope, text: string): Promise<string> };
  /** Runs one-shot helpers (the task tool); absent inside a helper, so helpers start none. */
  readonly subagent?: {
    run(request: { description: string; prompt: string; tools?: readonly string[] | undefined }, parent: ToolContext): Promise<ToolResult>;
  };
  /** What only the lead agent may do (lead-tools.ts): staff the team, answer requests, report to the person. */
  readonly lead?: LeadPowers;
  /** The teammate's MCP servers (connect_mcp); absent where none is configured. */
  readonly mcp?: { connect(server: string): Promise<ToolResult> };
  /** Aborted on shutdown: long-running tools (bash) stop. */
  readonly signal: AbortSignal;
  /** The claim held on each task this teammate took in this conversation: the fencing token for its writes. */
  readonly claims: Map<number, number>;
  /**
   * Whether a tool that lists or searches files (glob, grep) may show this one, workspace-relative:
   * no deny or ask rule covers reading it. Set by the registry for each call; absent: no rules.
   */
  readonly readable?: (file: string) => boolean;
  /** Called by `submit_plan`: the runtime's side of the control tools. */
  readonly control: {
    submitPlan(plan: string): Promise<string>;
    /** Called by `complete_task` before the board is told: a task's worktree is committed first. */
    beforeComplete?(id: number): Promise<void>;
  };
}

/** A teammate's background commands, as its tools reach them (jobs/background-jobs.ts). */
export interface JobControl {
  start(command: string, workdir: string, timeoutMs?: number): JobRecord;
  /** Up to `max` bytes of a job's output from `offset`; null for a job this teammate does not have. */
  output(id: string, offset: number, max: number): { record: JobRecord; text: string; size: number; next: number } | null;
  kill(id: string): JobRecord | null;
}

/** The team's schedule (cron.json), as the cron tools reach it (cron/schedule-store.ts). */
export interface ScheduleControl {
  read(): ScheduleFile;
  add(job: Omit<CronJob, 'id' | 'lastFiredFor'>): Promise<CronJob>;
  remove(id: string): Promise<CronJob | null>;
}

/** Whose memory file a line goes to: the team's or the teammate's own. */
export type MemoryScope = 'team' | 'me';

/** A skill a teammate's role may load (skills/skills.ts reads them from SKILL.md files). */
export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly dir: string;
  /** Roles that may use it; null: every role. */
  readonly roles: readonly string[] | null;
  /** Why its SKILL.md is not as it should be (it is listed anyway). */
  readonly warning: string | null;
}

/** The lead agent's reach over the team, each checked where it is done (the daemon spawns, the settings say what it may answer). */
export interface LeadPowers {
  members(): readonly Member[];
  spawn(spec: { name: string; role: string; plan?: boolean | undefined; budgetTokens?: number | undefined; prompt?: string | undefined }): Promise<string>;
  shutdown(name: string, force: boolean): Promise<string>;
  /** Answers a plan or permission request; one the lead may not answer (settings) is refused, saying the person will. */
  answer(idOrPrefix: string, approve: boolean, feedback: string, kind: 'plan' | 'permission'): Promise<string>;
  /** Asks a teammate to submit a plan for a task before it changes anything for it (request_plan). */
  requestPlan(name: string, taskId: number, note: string): Promise<string>;
  /** A message to the person (`user.jsonl`); `final` ends a goal's run (teamd run prints it and exits). */
  report(content: string, final: boolean, goal?: string): Promise<string>;
}

export interface ShellLauncher {
  /** `workdir`: where the command runs and what it may change besides the workspace (a task's worktree). */
  launch(
    command: string,
    workdir?: string,
  ): { readonly file: string; readonly args: readonly string[]; readonly env: NodeJS.ProcessEnv; readonly confined: boolean };
}

export interface Tool<I = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<I>;
  /** The JSON schema offered to the model, when it is not derived from `input` (an MCP server's own). */
  readonly inputSchema?: { readonly type: 'object'; readonly [key: string]: unknown };
  /** Changes the workspace or the board: refused until a required plan is approved. */
  readonly needsApprovedPlan: boolean;
  /** Calls of it in one answer run at the same time (helpers); other tools run one after another. */
  readonly concurrent?: boolean;
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}

/** Tools that come and go while a teammate runs (its MCP servers'): asked afresh for each model call. */
export interface ToolSource {
  /** The tools to offer the model now. */
  listed(): readonly Tool[];
  /** A tool it knows by name, offered now or not (one whose server is down answers why). */
  find(name: string): Tool | undefined;
  /** Resolves when changes under way (servers starting, tool lists being fetched again) are done: awaited before each model call. */
  settled(): Promise<void>;
}

/** What the registry does with a call after the gate: run it (maybe with an input a hook replaced), or answer the model with why not. */
export type GateVerdict = { readonly kind: 'run'; readonly input: unknown } | { readonly kind: 'refuse'; readonly content: string };

/** The registry's policy layer: the same for every tool, built-in or added later (mcp__server__tool). */
export interface ToolGate {
  before(tool: string, input: unknown, signal: AbortSignal): Promise<GateVerdict>;
  after(tool: string, input: unknown, result: ToolResult): Promise<ToolResult>;
  /** Whether `tool` may show the workspace file `file` among others (no deny or ask rule covers reading it by that tool). */
  readable(tool: string, file: string): boolean;
}

/** The tools as the agent loop calls them (tools/registry.ts): offered to the model, then run by name. */
export interface ToolSet {
  /** The tools to offer the model now, as the API takes them. */
  apiTools(): ApiTool[];
  /** Whether calls of this tool in one answer may run at the same time. */
  concurrent(name: string): boolean;
  /** Resolves when tools that come and go (MCP servers') are settled: awaited before each model call. */
  settled(signal?: AbortSignal): Promise<void>;
  /** Validates the model's input and runs the tool; an unknown tool or a bad input is an error result, never a throw. */
  run(name: string, rawInput: unknown, ctx: ToolContext, callId?: string): Promise<ToolResult>;
}

export function defineTool<I>(tool: Tool<I>): Tool<unknown> {
  return tool;
}

/** An expected failure, returned to the model as an error result rather than thrown through the loop. */
export function toolError(content: string): ToolResult {
  return { content, isError: true };
}
