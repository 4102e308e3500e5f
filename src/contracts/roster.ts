import * as z from './zod-mini.js';
import { nameSchema } from './names.js';
import { notificationsSettingSchema } from './notifications.js';

export const MEMBER_STATUSES = [
  'starting',
  'working',
  'waiting-plan',
  'waiting-permission',
  'idle',
  'asleep',
  'stopping',
  'shutdown',
  'crashed',
  'errored',
  'budget',
] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

/** The lead's name: the person's inbox, or the lead agent's when one runs (teamd run, teamd lead); always a valid recipient. */
export const LEAD = 'lead';
/** The person, when a lead agent runs: what the person says to the lead comes from `user`, and the lead reports to `user.jsonl`. Never a member. */
export const USER = 'user';
/** The lead agent's role: a member named `lead` with this role is the lead agent. */
export const LEAD_ROLE = 'lead';

export const tokenUsageSchema = z.object({
  inputTokens: z.number().check(z.nonnegative()),
  outputTokens: z.number().check(z.nonnegative()),
  cacheReadTokens: z.number().check(z.nonnegative()),
  cacheWriteTokens: z.number().check(z.nonnegative()),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** A teammate's name: a name, and never the lead's or the person's. */
export const teammateNameSchema = nameSchema.check(
  z.refine((name) => name !== LEAD, { message: `the name "${LEAD}" is reserved for the lead of the team: pick another, e.g. alice` }),
  z.refine((name) => name !== USER, { message: `the name "${USER}" is reserved for the person running the team: pick another, e.g. alice` }),
);

/** A member's name on the roster: a teammate's, or `lead` for the lead agent. */
const memberNameSchema = nameSchema.check(z.refine((name) => name !== USER, { message: `the name "${USER}" is reserved for the person running the team` }));

/** A role is a short label on one line (coder, reviewer, tester): it names the teammate's job in its prompt and in status. */
export const roleSchema = z.string().check(
  z.refine((role) => role.trim().length > 0, { message: 'a role must not be empty: give one such as coder, reviewer or tester' }),
  z.refine((role) => role.length <= 64, { message: 'a role is at most 64 characters' }),
  z.refine((role) => ![...role].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f), {
    message: 'a role is one line of text, without tabs or control characters',
  }),
);

export const memberSchema = z.looseObject({
  name: memberNameSchema,
  role: roleSchema,
  status: z.enum(MEMBER_STATUSES),
  pid: z.optional(z.nullable(z.number().check(z.int(), z.positive()))),
  model: z.optional(z.string()),
  prompt: z.optional(z.string()),
  plan: z.optional(z.boolean()),
  budgetTokens: z.optional(z.number().check(z.int(), z.positive())),
  task: z.optional(z.nullable(z.number().check(z.int(), z.positive()))),
  restarts: z.optional(z.number().check(z.int(), z.nonnegative())),
  startedAt: z.optional(z.nullable(z.iso.datetime({ offset: true }))),
  lastExit: z.optional(z.nullable(z.string())),
  /** Why it is not working as it should (a model outage, a refused key), shown by teamd status. */
  problem: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
  /** When it tries the model again after an outage. */
  retryAt: z.optional(z.nullable(z.iso.datetime({ offset: true }))),
  usage: z.optional(tokenUsageSchema),
  /** Tasks it gave back or refused and will not take again (the latest 100): it is not woken for them. */
  declined: z.optional(z.array(z.number().check(z.int(), z.positive())).check(z.maxLength(100))),
  /** Requests its commands made that the network proxy refused (the log names each). */
  netRefused: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** Times it woke for something (a message, a bell from the daemon), safety re-checks not counted. */
  wakes: z.optional(z.number().check(z.int(), z.nonnegative())),
});

export const settingsSchema = z.looseObject({
  /**
   * How often an idle teammate looks for work on its own, besides the wake-ups it gets (its inbox
   * watch, the daemon's bell): the safety net for a lost event or a daemon that is not answering.
   */
  recheckMs: z._default(z.number().check(z.int(), z.positive()), 10_000),
  /** Each log file (daemon, teammates, CLI) is rotated past this size; this many rotated files are kept. */
  logMaxBytes: z._default(z.number().check(z.int(), z.gte(64 * 1024)), 10 * 1024 * 1024),
  logFiles: z._default(z.number().check(z.int(), z.gte(1), z.lte(100)), 5),
  /** A system-wide service (teamd service) runs a team whose settings allow everything (bypassPermissions) only when this says so. */
  allowBypassInService: z._default(z.boolean(), false),
  /** "always": every task added with teamd task add in a git workspace gets its own worktree (--no-worktree opts out). */
  worktrees: z._default(z.enum(['off', 'always']), 'off'),
  /** A teammate idle this long exits and sleeps until work appears; 0 = never. */
  idleTimeoutMs: z._default(z.number().check(z.int(), z.nonnegative()), 60_000),
  model: z._default(z.string(), 'offline'),
  /**
   * The model for housekeeping — compaction summaries and one-shot helpers (the task tool) — so a
   * team on a large model does not pay its prices for them: the team's (`housekeepingModel`), and
   * per role (`housekeepingModelByRole`, which wins). Unset: the teammate's own model.
   */
  housekeepingModel: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  housekeepingModelByRole: z._default(z.record(z.string().check(z.minLength(1), z.maxLength(64)), z.string().check(z.minLength(1), z.maxLength(128))), {}),
  /** Stop ladder: how long a teammate gets to answer a shutdown (inbox or IPC), then after SIGTERM. */
  ipcGraceMs: z._default(z.number().check(z.int(), z.positive()), 10_000),
  termGraceMs: z._default(z.number().check(z.int(), z.positive()), 5_000),
  /** Model output limit per call, and the history size past which a conversation is compacted. */
  maxTokens: z._default(z.number().check(z.int(), z.positive()), 8_192),
  compactThresholdTokens: z._default(z.number().check(z.int(), z.positive()), 150_000),
  /**
   * How teammates' commands are confined: "required" (bubblewrap, or the daemon refuses to
   * start), "preferred" (bubblewrap where installed, else unconfined with a loud warning), "off".
   */
  sandbox: z._default(z.enum(['required', 'preferred', 'off']), 'required'),
  /** A model call that sends no byte for this long is abandoned as a transient failure. */
  modelStallMs: z._default(z.number().check(z.int(), z.positive()), 60_000),
  /** After a model outage outlasts the SDK's retries, a teammate waits this long, doubling per failure up to the cap. */
  modelRetryBaseMs: z._default(z.number().check(z.int(), z.positive()), 5_000),
  modelRetryMaxMs: z._default(z.number().check(z.int(), z.positive()), 300_000),
  /** The context window the offline model enforces (to try compaction without a huge conversation). */
  offlineContextTokens: z._default(z.number().check(z.int(), z.positive()), 200_000),
  /** Tokens the whole team may spend (every call of every teammate); past it every teammate stops as for its own budget. */
  teamBudgetTokens: z.optional(z.number().check(z.int(), z.positive())),
  /** A background job (bash with run_in_background) still running after this long is killed and reported timed out. */
  jobTimeoutMs: z._default(z.number().check(z.int(), z.positive(), z.lte(86_400_000)), 30 * 60_000),
  /** A background job's output past this many bytes is dropped (the job runs on; its record says the output was cut). */
  jobOutputMaxBytes: z._default(z.number().check(z.int(), z.gte(1024), z.lte(1024 * 1024 * 1024)), 10 * 1024 * 1024),
  /**
   * A teammate whose V8 heap holds more than this after a full collection stops after its step
   * and is started afresh by the daemon (teammate/heap-bound.ts): a leak ends in a restart, not
   * in the machine swapping. 16 MiB to 4 GiB (V8's own limit here).
   */
  heapMaxBytes: z._default(z.number().check(z.int(), z.gte(16 * 1024 * 1024), z.lte(4 * 1024 * 1024 * 1024)), 256 * 1024 * 1024),
  /** An MCP server that has not answered initialize (and listed its tools) after this long is left out, with the reason logged. */
  mcpConnectTimeoutMs: z._default(z.number().check(z.int(), z.positive(), z.lte(600_000)), 30_000),
  /** An MCP tool call that has not answered after this long (progress notifications restart the clock) fails with a timeout. */
  mcpToolTimeoutMs: z._default(z.number().check(z.int(), z.positive(), z.lte(86_400_000)), 600_000),
  /** Which teammates' requests the lead agent may answer itself; the rest wait for the person (teamd approve|reject). */
  leadAnswers: z._default(z.strictObject({ plans: z._default(z.boolean(), true), permissions: z._default(z.boolean(), false) }), {
    plans: true,
    permissions: false,
  }),
  /** Tools the lead agent gets besides its own (it reads, plans and staffs; these let it change the workspace too). */
  leadTools: z._default(z.array(z.enum(['bash', 'write_file', 'edit_file', 'job_output', 'job_kill', 'task'])).check(z.maxLength(6)), []),
  /**
   * Where the board, the mailboxes and the cursors live: "files" (this state folder) or a
   * PostgreSQL URL, postgres://user:password@host:port/database (docs/stores.md). TEAMD_STORE overrides it.
   */
  store: z._default(z.string().check(z.minLength(1), z.maxLength(2048)), 'files'),
  /** The team's name in a shared store (several teams share one database); default: the workspace folder's name. */
  team: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/))),
  /**
   * A shared store: a host whose daemon has not shown it is alive for this long is lost; its
   * teammates' tasks go back to the board (their claim numbers fence off a late return).
   */
  hostLeaseMs: z._default(z.number().check(z.int(), z.gte(1_000), z.lte(3_600_000)), 30_000),
  /** This host's name in a shared store; default: the machine's hostname. */
  host: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/))),
  /**
   * The dashboard the daemon serves (teamd ui prints its address, token included): on 127.0.0.1 at
   * `port` (0: a free one), another `host` only with a token in $TEAMD_UI_TOKEN; `allowedHosts`
   * are the host:port names a reverse proxy sends (docs/dashboard.md). Absent: the daemon serves none.
   */
  ui: z.optional(
    z.strictObject({
      port: z._default(z.number().check(z.int(), z.gte(0), z.lte(65_535)), 0),
      host: z._default(z.string().check(z.minLength(1), z.maxLength(255)), '127.0.0.1'),
      allowedHosts: z._default(z.array(z.string().check(z.regex(/^[A-Za-z0-9.[\]:-]{1,300}$/))).check(z.maxLength(16)), []),
    }),
  ),
  /**
   * What the person is told of away from the screen (docs/notifications.md): requests that wait
   * for them, failed tasks, a stuck board, the lead's final report, sent to webhooks (generic JSON
   * or Slack's text) and to Notification hooks. Absent: Notification hooks only.
   */
  notifications: z.optional(notificationsSettingSchema),
  /**
   * Environment variables commands, hooks and workspace MCP servers get besides the usual ones
   * (PATH, HOME, LANG, TERM, ...: sandbox/command-env.ts): each named is decided to be no secret.
   */
  passEnv: z._default(z.array(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/))).check(z.maxLength(256)), []),
  /** Environment variables commands never see, even the usual ones, besides ANTHROPIC_*, CLAUDE_* and TEAMD_* (never passed). */
  secretEnv: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.maxLength(256)), []),
});
export type TeamSettings = z.infer<typeof settingsSchema>;

export const configSchema = z.looseObject({
  members: z._default(z.array(memberSchema), []).check(
    z.superRefine((members, ctx) => {
      const seen = new Set<string>();
      for (const member of members) {
        if (seen.has(member.name)) ctx.addIssue({ code: 'custom', message: `teammate "${member.name}" is listed twice: remove one of its entries` });
        seen.add(member.name);
      }
    }),
  ),
  settings: z._default(settingsSchema, () => settingsSchema.parse({})),
});

export type Member = z.infer<typeof memberSchema>;
export type TeamConfig = z.infer<typeof configSchema>;

/** The largest roster read (a member's record is well under 1 KiB): a larger file is not read, but reported. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
