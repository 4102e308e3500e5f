import * as z from 'zod';
import { PERMISSION_MODES } from '../permissions/permissions.js';
import { parseRule } from '../permissions/rules.js';
import { sandboxSettingsSchema } from './sandbox-settings.js';

/**
 * The settings file as Claude Code writes it (`.team/settings.json`, `.team/roles/<role>.json`,
 * a workspace's `.claude/settings.json`): what teamd does not implement is a warning, never a
 * reason to refuse the file (settingsWarnings); only what teamd would read wrongly is refused.
 */

/** Hook events teamd fires: Claude Code's, and teamd's own about the team's work. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'UserPromptSubmit',
  'Stop',
  'SessionStart',
  'SessionEnd',
  'SubagentStop',
  'PreCompact',
  'TeammateIdle',
  'TaskClaimed',
  'TaskCompleted',
  'TaskFailed',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Claude Code's events teamd has no moment for: accepted, warned about, never fired. */
const UNFIRED_EVENTS = ['SubagentStart', 'PermissionRequest', 'PostToolUseFailure'];

/** Claude Code's settings keys teamd reads; the rest are warned about (settingsWarnings). */
const KNOWN_KEYS = ['$schema', 'permissions', 'hooks', 'sandbox', 'enabledMcpjsonServers', 'disabledMcpjsonServers'];
const KNOWN_PERMISSION_KEYS = ['allow', 'deny', 'ask', 'defaultMode', 'additionalDirectories', 'askTimeoutSeconds', 'askTimeoutDecision'];

const ruleText = z.string().superRefine((text, ctx) => {
  try {
    parseRule(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** One hook: a `command` runs; another type (Claude Code's `prompt`) is accepted and warned about. */
const hookSchema = z
  .looseObject({
    type: z.string().min(1),
    command: z.string().optional(),
    /** Seconds, as in Claude Code. */
    timeout: z.number().positive().max(3600).optional(),
  })
  .superRefine((hook, ctx) => {
    if (hook.type === 'command' && (typeof hook.command !== 'string' || hook.command.length === 0))
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'a command hook needs its command' });
  });

const hookGroupSchema = z.looseObject({
  /** A regex over tool names (PreToolUse, PostToolUse) or kinds of notification; empty, absent or `*` matches everything, as in Claude Code. */
  matcher: z
    .string()
    .optional()
    .superRefine((matcher, ctx) => {
      if (!matcher || matcher === '*') return;
      try {
        new RegExp(matcher);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `the matcher is not a valid regular expression: ${(error as Error).message}` });
      }
    }),
  hooks: z.array(hookSchema).min(1),
});

export const settingsFileSchema = z.looseObject({
  permissions: z
    .looseObject({
      allow: z.array(ruleText).optional(),
      deny: z.array(ruleText).optional(),
      ask: z.array(ruleText).optional(),
      defaultMode: z.enum(PERMISSION_MODES).optional(),
      /** Claude Code's: folders besides the workspace that teammates' commands may read and write (the sandbox's allowWrite). */
      additionalDirectories: z.array(z.string().min(1).max(4096)).max(256).optional(),
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
  hooks: z.record(z.string(), z.array(hookGroupSchema)).optional(),
});
export type SettingsFile = z.infer<typeof settingsFileSchema>;

/** What a file says that teamd does not do, one line each: shown by check-settings, logged once by each teammate. */
export function settingsWarnings(file: SettingsFile): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(file)) if (!KNOWN_KEYS.includes(key)) warnings.push(`"${key}" is not a setting teamd uses; ignored`);
  for (const key of Object.keys(file.permissions ?? {}))
    if (!KNOWN_PERMISSION_KEYS.includes(key)) warnings.push(`permissions.${key} is not a setting teamd uses; ignored`);
  for (const [event, groups] of Object.entries(file.hooks ?? {})) {
    if (UNFIRED_EVENTS.includes(event)) warnings.push(`hooks.${event}: teamd has no such moment; these hooks never run`);
    else if (!(HOOK_EVENTS as readonly string[]).includes(event))
      warnings.push(`hooks.${event} is not a hook event (teamd's: ${HOOK_EVENTS.join(', ')}); ignored`);
    for (const group of groups)
      for (const hook of group.hooks)
        if (hook.type !== 'command') warnings.push(`hooks.${event}: a "${hook.type}" hook is not run by teamd (only "command" hooks are); ignored`);
  }
  return warnings;
}
