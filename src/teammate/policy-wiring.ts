import path from 'node:path';
import type { MailStore } from '../contracts/mail-store.js';
import type { Message } from '../contracts/message.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { PermissionAsker } from '../permissions/permission-asker.js';
import { SettingsSource } from '../settings/settings-source.js';
import { additionalRoots, combineChain, DEFAULT_SETTINGS, readSettingsFile, type Settings } from '../settings/settings.js';
import { PolicyGate } from '../policy/tool-gate.js';
import { type ToolGate } from '../contracts/tool.js';
import { EventHooks } from '../hooks/event-hooks.js';
import type { HookEnvironment } from '../hooks/hooks.js';
import type { Bell } from '../contracts/team-store.js';

/** What the runtime tells the gate as it goes: the task in hand, and when a call waits for the lead. */
export interface GateView {
  readonly taskId: () => number | null;
  /** Where the tools work now: the workspace, or the task's worktree. */
  readonly root: () => string;
  readonly waiting: (on: boolean) => void;
}

/** A teammate's policy: the gate around tool calls and the hooks of its other events. */
export interface Policy {
  readonly gate: ToolGate;
  readonly events: EventHooks;
}

export type MakeGate = (view: GateView) => Policy;

/** Where a teammate's settings live: the team's file, and its role's on top. */
export function settingsFiles(paths: StatePaths, role: string): { team: string; role: string | null } {
  const safeRole = /^[A-Za-z0-9_-]{1,64}$/.test(role) ? role : null;
  return { team: path.join(paths.root, 'settings.json'), role: safeRole ? path.join(paths.root, 'roles', `${safeRole}.json`) : null };
}

/**
 * Every settings file a teammate obeys, lowest precedence first, as Claude Code orders its own:
 * the user's (~/.claude/settings.json), the project's (.claude/settings.json), the project's
 * local one (.claude/settings.local.json), then teamd's: the team's and the role's, which win.
 * Lists (allow, deny, ask, hooks) add up, so a deny anywhere holds.
 */
export function settingsChain(paths: StatePaths, role: string, home: string | undefined): string[] {
  const own = settingsFiles(paths, role);
  const workspace = path.dirname(paths.root);
  return [
    ...(home ? [path.join(home, '.claude', 'settings.json')] : []),
    path.join(workspace, '.claude', 'settings.json'),
    path.join(workspace, '.claude', 'settings.local.json'),
    own.team,
    ...(own.role ? [own.role] : []),
  ];
}

/** Which configured MCP servers a teammate of `role` uses, by its settings; settings that do not parse choose none away (the gate reports them). */
export function mcpChoiceFor(paths: StatePaths, role: string, home: string | undefined): Settings['mcpServers'] {
  try {
    return combineChain(settingsChain(paths, role, home).map((file) => readSettingsFile(file))).mcpServers;
  } catch {
    return DEFAULT_SETTINGS.mcpServers;
  }
}

/** A teammate's settings files, read once now: a bad file is reported as the teammate starts, not at its first call. */
export function settingsSourceFor(paths: StatePaths, role: string, home: string | undefined, logger: Logger): SettingsSource {
  const settings = new SettingsSource(settingsChain(paths, role, home), logger);
  settings.current();
  return settings;
}

/** Builds the policy gate of one teammate (permission rules, hooks, asking the lead). */
export function policyGateMaker(deps: {
  readonly name: string;
  readonly role: string;
  readonly workspace: string;
  readonly paths: StatePaths;
  readonly sessionId: string;
  readonly mailbox: MailStore;
  readonly bell: Bell;
  readonly verifyGrant: (message: Message) => boolean;
  readonly env: NodeJS.ProcessEnv;
  /** Where hooks run: the teammate's sandbox, as its commands (HookEnvironment.launch). */
  readonly hookLaunch?: HookEnvironment['launch'];
  /** The team's and role's settings (settingsSourceFor): the sandbox reads the same. */
  readonly settings: SettingsSource;
  readonly logger: Logger;
}): MakeGate {
  const settings = deps.settings;
  const hookEnv: HookEnvironment = { workspace: deps.workspace, env: deps.env, logger: deps.logger, ...(deps.hookLaunch ? { launch: deps.hookLaunch } : {}) };
  return (view) => {
    const identity = {
      name: deps.name,
      role: deps.role,
      workspace: deps.workspace,
      stateDir: deps.paths.root,
      sessionId: deps.sessionId,
      taskId: view.taskId,
      root: view.root,
      extraRoots: () => additionalRoots(settings.current(), deps.workspace, deps.env.HOME),
    };
    const gate = new PolicyGate({
      identity,
      settings,
      asker: new PermissionAsker({
        name: deps.name,
        paths: deps.paths,
        mailbox: deps.mailbox,
        verifyGrant: deps.verifyGrant,
        waitForInbox: async (signal, timeoutMs) => {
          const timer = AbortSignal.timeout(Math.max(1, timeoutMs));
          await deps.bell.wait(AbortSignal.any([signal, timer]));
        },
        waiting: view.waiting,
        logger: deps.logger,
      }),
      hookEnv,
      logger: deps.logger,
    });
    return { gate, events: new EventHooks({ identity, settings, hookEnv }) };
  };
}
