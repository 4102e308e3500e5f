import path from 'node:path';
import type { Notice } from '../contracts/notifications.js';
import { LEAD, LEAD_ROLE, type Member, type TeamSettings } from '../contracts/roster.js';
import { hookPayload, runHooks } from '../hooks/hooks.js';
import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { commandEnv, envPolicyOf } from '../sandbox/command-env.js';
import type { SettingsSource } from '../settings/settings-source.js';
import { SPAWNED_BY_ENV, spawnMarker } from '../supervisor/leftovers.js';
import { settingsSourceFor } from '../teammate/policy-wiring.js';
import { teammateSandbox, type TeammateSandbox } from '../teammate/sandbox-wiring.js';

/** Claude Code's `notification_type` for each notice (matchers match it); a permission request's hook is the teammate's own (policy/tool-gate.ts). */
export function notificationType(notice: Notice): string | null {
  if (notice.kind === 'request') return notice.request?.kind === 'permission' ? null : 'plan_approval';
  return notice.kind;
}

export interface NoticeHookDeps {
  readonly paths: StatePaths;
  readonly env: NodeJS.ProcessEnv;
  readonly execPath: string;
  readonly pid: number;
  readonly logger: Logger;
  readonly roster: () => { readonly members: readonly Member[]; readonly settings: TeamSettings };
}

interface RoleHooks {
  readonly settings: SettingsSource;
  sandbox: Promise<TeammateSandbox> | null;
}

/**
 * The Notification hooks of the settings (the team's, and the role's of the teammate a notice is
 * about) for the daemon's notices. They run as a teammate's hooks do: in that role's sandbox,
 * with the environment commands get, since the notice carries what a model wrote. The sandbox of
 * a role is made at its first hook, never for a team without Notification hooks.
 */
export class NoticeHooks {
  private readonly roles = new Map<string, RoleHooks>();

  constructor(private readonly deps: NoticeHookDeps) {}

  async run(notice: Notice): Promise<void> {
    const type = notificationType(notice);
    if (type === null) return;
    const { paths, logger } = this.deps;
    const roster = this.deps.roster();
    const name = notice.teammate ?? LEAD;
    const role = roster.members.find((member) => member.name === name)?.role ?? LEAD_ROLE;
    const hooks = this.roleHooks(role);
    const settings = hooks.settings.current();
    const groups = settings.hooks.Notification;
    if (!groups || groups.length === 0) return;
    const workspace = path.dirname(paths.root);
    const marker = { name: SPAWNED_BY_ENV, value: spawnMarker(this.deps.pid, paths.root) };
    hooks.sandbox ??= teammateSandbox({
      name: `notices-${role}`,
      mode: roster.settings.sandbox,
      workspace,
      stateDir: paths.root,
      runDir: paths.runDir,
      execPath: this.deps.execPath,
      configFile: paths.config,
      env: this.deps.env,
      envPolicy: envPolicyOf(roster.settings),
      marker,
      settings: () => hooks.settings.current().sandbox,
      reportRefused: (refused) => logger.warn({ refused }, 'a Notification hook was refused network access'),
      logger,
    });
    const sandbox = await hooks.sandbox;
    const source = { name, role, workspace, stateDir: paths.root, sessionId: `notifications@${this.deps.pid}`, taskId: () => notice.task };
    const payload = hookPayload(source, 'Notification', { message: notice.title, notification_type: type, permission_mode: settings.rules.mode, notice });
    await runHooks(groups, [type], payload, {
      workspace,
      env: commandEnv(this.deps.env, envPolicyOf(roster.settings), marker),
      logger,
      launch: (command) => sandbox.shell.launch(command, workspace),
    });
  }

  async close(): Promise<void> {
    for (const hooks of this.roles.values()) {
      const sandbox = await hooks.sandbox?.catch(() => null);
      await sandbox?.close();
    }
  }

  private roleHooks(role: string): RoleHooks {
    let hooks = this.roles.get(role);
    if (!hooks) {
      hooks = { settings: settingsSourceFor(this.deps.paths, role, this.deps.env.HOME, this.deps.logger), sandbox: null };
      this.roles.set(role, hooks);
    }
    return hooks;
  }
}
