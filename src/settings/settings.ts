import { TeamdError } from '../errors.js';
import { parseRules, type PermissionRules } from '../permissions/permissions.js';
import { jsonErrorOffset } from './json-error-position.js';
import { readBoundedText } from '../fs/read-text.js';
import { combineSandboxSettings, DEFAULT_SANDBOX_SETTINGS, placesOfReadRules, resolvePlace, type SandboxSettings } from './sandbox-settings.js';
import { HOOK_EVENTS, settingsFileSchema, type HookEvent, type SettingsFile } from './settings-file-schema.js';

export { HOOK_EVENTS, settingsWarnings, type HookEvent, type SettingsFile } from './settings-file-schema.js';

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
  /** permissions.additionalDirectories, as written: places outside the workspace the file tools (and commands) may read and write. */
  readonly additionalDirectories: readonly string[];
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
  additionalDirectories: [],
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
  return combineChain([team, role]);
}

/** Settings files in order of precedence, lowest first: permission lists, hooks and disabled servers add up; the last mode, ask settings and enabled list said win. */
export function combineChain(chain: readonly (SettingsFile | null)[]): Settings {
  const files = chain.filter((file): file is SettingsFile => file !== null);
  const list = (key: 'allow' | 'deny' | 'ask'): string[] => files.flatMap((file) => file.permissions?.[key] ?? []);
  const last = <K extends 'defaultMode' | 'askTimeoutSeconds' | 'askTimeoutDecision'>(key: K) =>
    files
      .map((file) => file.permissions?.[key])
      .filter((value) => value !== undefined)
      .at(-1);
  const hooks: Partial<Record<HookEvent, HookGroup[]>> = {};
  for (const file of files) {
    for (const [event, groups] of Object.entries(file.hooks ?? {})) {
      // An event teamd does not fire, and a hook that is not a command, are warned about (settingsWarnings) and left out.
      if (!(HOOK_EVENTS as readonly string[]).includes(event)) continue;
      for (const group of groups) {
        const commands = group.hooks.flatMap((hook) =>
          hook.type === 'command' && hook.command
            ? [{ command: hook.command, timeoutMs: Math.round((hook.timeout ?? DEFAULT_HOOK_TIMEOUT_MS / 1000) * 1000) }]
            : [],
        );
        if (commands.length > 0)
          (hooks[event as HookEvent] ??= []).push({
            matcher: group.matcher && group.matcher !== '*' ? new RegExp(`^(?:${group.matcher})$`) : null,
            hooks: commands,
          });
      }
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
      files.flatMap((file) => file.permissions?.additionalDirectories ?? []),
    ),
    additionalDirectories: files.flatMap((file) => file.permissions?.additionalDirectories ?? []),
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

/** permissions.additionalDirectories as absolute folders: `/abs`, `~/…` (the home), or relative to the workspace, as Claude Code reads them. */
export function additionalRoots(settings: Pick<Settings, 'additionalDirectories'>, workspace: string, home: string | undefined): string[] {
  return settings.additionalDirectories.map((text) => resolvePlace(text, { workspace, home }));
}
