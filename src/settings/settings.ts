import * as z from 'zod';
import { TeamdError } from '../errors.js';
import { parseRules, PERMISSION_MODES, type PermissionRules } from '../permissions/permissions.js';
import { parseRule } from '../permissions/rules.js';
import { jsonErrorOffset } from './json-error-position.js';
import { readBoundedText } from '../fs/read-text.js';
import { combineSandboxSettings, DEFAULT_SANDBOX_SETTINGS, placesOfReadRules, sandboxSettingsSchema, type SandboxSettings } from './sandbox-settings.js';

/** Hook events: Claude Code's, and teamd's own about the team's work. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SessionStart',
  'TeammateIdle',
  'TaskClaimed',
  'TaskCompleted',
  'TaskFailed',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const ruleText = z.string().superRefine((text, ctx) => {
  try {
    parseRule(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const hookCommandSchema = z.strictObject({
  type: z.literal('command'),
  command: z.string().min(1),
  /** Seconds, as in Claude Code. */
  timeout: z.number().positive().max(3600).optional(),
});

const hookGroupSchema = z.strictObject({
  /** A regex over tool names (PreToolUse, PostToolUse); empty or absent matches everything. */
  matcher: z
    .string()
    .optional()
    .superRefine((matcher, ctx) => {
      if (!matcher) return;
      try {
        new RegExp(matcher);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `the matcher is not a valid regular expression: ${(error as Error).message}` });
      }
    }),
  hooks: z.array(hookCommandSchema).min(1),
});

/** `.team/settings.json` (and `.team/roles/<role>.json`): Claude Code's settings.json where the concepts match. */
export const settingsFileSchema = z.looseObject({
  permissions: z
    .strictObject({
      allow: z.array(ruleText).optional(),
      deny: z.array(ruleText).optional(),
      ask: z.array(ruleText).optional(),
      defaultMode: z.enum(PERMISSION_MODES).optional(),
      /** teamd's own: how long an asked call waits for the lead, and what happens then. */
      askTimeoutSeconds: z.number().positive().max(86_400).optional(),
      askTimeoutDecision: z.enum(['allow', 'deny']).optional(),
    })
    .optional(),
  /** Claude Code's: the MCP servers teammates use (absent: every configured one); a role's file replaces the team's list. */
  enabledMcpjsonServers: z.array(z.string().min(1).max(64)).max(1000).optional(),
  /** Claude Code's: MCP servers never used; the team's and the role's lists add up. */
  disabledMcpjsonServers: z.array(z.string().min(1).max(64)).max(1000).optional(),
  /** Claude Code's: what sandboxed commands may read, write and reach (sandbox-settings.ts). */
  sandbox: sandboxSettingsSchema.optional(),
  hooks: z
    .record(z.string(), z.array(hookGroupSchema))
    .superRefine((hooks, ctx) => {
      for (const event of Object.keys(hooks))
        if (!(HOOK_EVENTS as readonly string[]).includes(event))
          ctx.addIssue({ code: 'custom', path: [event], message: `${JSON.stringify(event)} is not a hook event: use one of ${HOOK_EVENTS.join(', ')}` });
    })
    .optional(),
});
export type SettingsFile = z.infer<typeof settingsFileSchema>;

export interface HookCommand {
  readonly command: string;
  readonly timeoutMs: number;
}

export interface HookGroup {
  readonly matcher: RegExp | null;
  readonly hooks: readonly HookCommand[];
}

/** The settings in force for one teammate: the team's file with its role's file on top. */
export interface Settings {
  readonly rules: PermissionRules;
  readonly hooks: Readonly<Partial<Record<HookEvent, readonly HookGroup[]>>>;
  readonly askTimeoutMs: number;
  readonly askTimeoutDecision: 'allow' | 'deny';
  /** Which configured MCP servers the teammate uses: `enabled` null means all of them. */
  readonly mcpServers: { readonly enabled: readonly string[] | null; readonly disabled: readonly string[] };
  /** What commands may read, write and reach beyond teamd's defaults. */
  readonly sandbox: SandboxSettings;
}

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;
/** A settings file larger than this is refused (it is read whole, by every teammate, whenever it changes). */
const MAX_SETTINGS_BYTES = 1024 * 1024;
export const DEFAULT_ASK_TIMEOUT_MS = 10 * 60_000;

/** No settings file: the mode `default` (reads allowed, the rest asked), no hooks. */
export const DEFAULT_SETTINGS: Settings = {
  rules: parseRules({}),
  hooks: {},
  askTimeoutMs: DEFAULT_ASK_TIMEOUT_MS,
  askTimeoutDecision: 'deny',
  mcpServers: { enabled: null, disabled: [] },
  sandbox: DEFAULT_SANDBOX_SETTINGS,
};

/**
 * Reads and checks one settings file; null when it does not exist. A JSON error names the line
 * and column; a rule or hook that does not fit names its place in the file.
 */
export function readSettingsFile(file: string): SettingsFile | null {
  const read = readBoundedText(file, MAX_SETTINGS_BYTES);
  if (read.kind === 'missing') return null;
  if (read.kind === 'unusable') {
    if (read.stat.isFile() && read.stat.size > MAX_SETTINGS_BYTES)
      throw new TeamdError('INVALID_INPUT', `${file} is ${read.stat.size} bytes; a settings file is at most ${MAX_SETTINGS_BYTES} bytes`);
    throw new TeamdError('IO', `cannot read ${file}: ${read.reason}`);
  }
  const raw = read.text;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new TeamdError('INVALID_INPUT', `${file}: ${describeJsonError(raw, error as Error)}`);
  }
  const parsed = settingsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map(String).join('.');
    const line = lineOfPath(raw, issue.path);
    throw new TeamdError('INVALID_INPUT', `${file}${line ? `:${line}` : ''}: ${where ? `${where}: ` : ''}${issue.message}`);
  }
  return parsed.data;
}

/** The team's settings with a role's on top: rules and hooks add up; the role's mode and ask settings win. */
export function combineSettings(team: SettingsFile | null, role: SettingsFile | null): Settings {
  const files = [team, role].filter((file): file is SettingsFile => file !== null);
  const list = (key: 'allow' | 'deny' | 'ask'): string[] => files.flatMap((file) => file.permissions?.[key] ?? []);
  const last = <K extends 'defaultMode' | 'askTimeoutSeconds' | 'askTimeoutDecision'>(key: K) =>
    files
      .map((file) => file.permissions?.[key])
      .filter((value) => value !== undefined)
      .at(-1);
  const hooks: Partial<Record<HookEvent, HookGroup[]>> = {};
  for (const file of files) {
    for (const [event, groups] of Object.entries(file.hooks ?? {}) as [HookEvent, NonNullable<SettingsFile['hooks']>[HookEvent]][]) {
      for (const group of groups ?? [])
        (hooks[event] ??= []).push({
          matcher: group.matcher ? new RegExp(`^(?:${group.matcher})$`) : null,
          hooks: group.hooks.map((hook) => ({ command: hook.command, timeoutMs: Math.round((hook.timeout ?? DEFAULT_HOOK_TIMEOUT_MS / 1000) * 1000) })),
        });
    }
  }
  const seconds = last('askTimeoutSeconds');
  return {
    rules: parseRules({ allow: list('allow'), deny: list('deny'), ask: list('ask'), defaultMode: last('defaultMode') }),
    hooks,
    askTimeoutMs: seconds === undefined ? DEFAULT_ASK_TIMEOUT_MS : Math.round(seconds * 1000),
    askTimeoutDecision: last('askTimeoutDecision') ?? 'deny',
    mcpServers: {
      enabled:
        files
          .map((file) => file.enabledMcpjsonServers)
          .filter((list) => list !== undefined)
          .at(-1) ?? null,
      disabled: files.flatMap((file) => file.disabledMcpjsonServers ?? []),
    },
    sandbox: combineSandboxSettings(
      files.map((file) => file.sandbox),
      placesOfReadRules(list('deny')),
    ),
  };
}

function describeJsonError(raw: string, error: Error): string {
  const offset = jsonErrorOffset(raw);
  if (offset === null) return `not valid JSON (${error.message.split('\n')[0]})`;
  const before = raw.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `not valid JSON at line ${line}, column ${column}`;
}

/** The line of the last key of a path, found by searching the text in order: good enough to point a person at it. */
function lineOfPath(raw: string, pathKeys: readonly PropertyKey[]): number | null {
  let at = 0;
  for (const key of pathKeys) {
    if (typeof key !== 'string') continue;
    const found = raw.indexOf(JSON.stringify(key), at);
    if (found === -1) break;
    at = found;
  }
  return at === 0 ? null : raw.slice(0, at).split('\n').length;
}
