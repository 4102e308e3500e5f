import type { HookEnvironment, HookOutcome, HookPayload, GateIdentity } from './hooks.js';
import { hookPayload, runHooks } from './hooks.js';
import type { HookEvent } from '../settings/settings.js';
import type { SettingsSource } from '../settings/settings-source.js';

/** Hooks of the events that are not tool calls: a turn's end, a session's start, the team's work. */
export class EventHooks {
  constructor(
    private readonly deps: {
      readonly identity: GateIdentity;
      readonly settings: SettingsSource;
      readonly hookEnv: HookEnvironment;
    },
  ) {}

  async run(
    event: Exclude<HookEvent, 'PreToolUse' | 'PostToolUse'>,
    extra: Partial<HookPayload> & { readonly task_id?: number | null } = {},
  ): Promise<HookOutcome> {
    const settings = this.deps.settings.current();
    return runHooks(settings.hooks[event], null, hookPayload(this.deps.identity, event, { permission_mode: settings.rules.mode, ...extra }), this.deps.hookEnv);
  }
}
