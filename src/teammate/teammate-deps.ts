import type { Identity } from '../agent/system-prompt.js';
import type { TodoItem } from '../contracts/todos.js';
import type { InboxReader, MailStore } from '../contracts/mail-store.js';
import type { TaskBoard } from '../contracts/task-board.js';
import type { Message } from '../contracts/message.js';
import type { BackgroundJobs } from '../jobs/background-jobs.js';
import type { Logger } from '../log/logger.js';
import type { ModelClient } from '../contracts/model.js';
import type { LeadPowers, ShellLauncher, Tool, ToolContext, ToolResult, ToolSource } from '../contracts/tool.js';
import type { Bell } from '../contracts/team-store.js';
import type { DaemonLink } from './daemon-link.js';
import type { BackoffPolicy } from './model-backoff.js';
import type { MakeGate } from './policy-wiring.js';
import type { Knowledge } from './prompt-assembler.js';
import type { Session, SessionStore } from './session-store.js';
import type { BudgetView } from './token-budget.js';

/** What a teammate's runtime is given: everything it touches comes in here (worker-main.ts wires it). */
export interface TeammateDeps {
  readonly identity: Identity;
  readonly stateDir: string;
  readonly shell: ShellLauncher;
  /** Whether a grant-type message carries the person's or the daemon's signature (store/protocol-key.ts). */
  readonly verifyGrant: (message: Message) => boolean;
  readonly logger: Logger;
  readonly board: TaskBoard;
  readonly mailbox: MailStore;
  readonly consumer: InboxReader;
  /** Its background commands: their ends are told to the conversation, and while one runs the teammate does not go to sleep. */
  readonly jobs: BackgroundJobs;
  /** Skills and long-term memory: in the system prompt of every call, and behind load_skill and remember. */
  readonly knowledge?: Knowledge;
  /** Publishes the teammate's plan (todo_write) for teamd status. */
  readonly todos?: (items: readonly TodoItem[]) => void;
  /** The team's schedule, for schedule_cron, list_crons and cancel_cron. */
  readonly schedule?: ToolContext['schedule'];
  readonly bell: Bell;
  readonly link: DaemonLink;
  readonly model: ModelClient;
  /** The model for compaction summaries and one-shot helpers (housekeepingModel), and its output limit; none: the teammate's own. */
  readonly housekeeping?: { readonly client: ModelClient; readonly maxTokens: number };
  readonly sessions: SessionStore;
  /** Folders outside the workspace its file tools may use too (permissions.additionalDirectories), resolved, read afresh. */
  readonly extraRoots?: () => readonly string[];
  readonly session: Session;
  /** Idle this long with nothing to do: report asleep and end (0 = never). */
  readonly idleTimeoutMs: number;
  /** Told when work starts and when the teammate goes idle: gives memory back and keeps the heap bounded (worker-main.ts); none: V8 decides alone. */
  readonly heap?: HeapWatch;
  readonly maxTokens: number;
  /** The most one call may ask for (the model's output limit). */
  readonly maxTokensCap?: number;
  readonly compactThresholdTokens: number;
  /** The teammate's and the team's token budgets, read afresh before each call (the person may raise them). */
  readonly budget: () => BudgetView;
  /** How long to wait out a model outage that outlasted the SDK's retries. */
  readonly backoff: BackoffPolicy;
  /**
   * True while the daemon has looked at the board since it last changed (store/files/look-marker.ts):
   * a safety re-check then need not scan it, since every ready task was seen and rung for.
   */
  readonly daemonCoversBoard?: () => boolean;
  /** Permission rules and hooks around every tool call (teammate/policy-wiring.ts); none: every call runs. */
  readonly makeGate?: MakeGate;
  /** Its MCP servers' tools (teammate/mcp-wiring.ts); none configured: absent. */
  readonly mcp?: TeammateMcp;
  /** Its tools: every teammate's (ALL_TOOLS) unless it is the lead agent (LEAD_TOOLS). */
  readonly tools?: readonly Tool[];
  /** The lead agent's powers over the team; with them it never claims a task itself. */
  readonly lead?: LeadPowers;
}

/** What is told of the teammate's work for its heap's sake (heap-trim.ts, heap-bound.ts). */
export interface HeapWatch {
  /** A unit of work starts. */
  working(): void;
  /** The teammate went idle. */
  idle(): void;
}

/** What the runtime needs of the teammate's MCP servers. */
export interface TeammateMcp extends ToolSource {
  connect(server: string): Promise<ToolResult>;
}
