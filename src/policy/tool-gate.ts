import type { Logger } from '../log/logger.js';
import type { ToolResult, GateVerdict, ToolGate } from '../contracts/tool.js';
import { decide, type Decision } from '../permissions/permissions.js';
import { hookPayload, runHooks, type HookEnvironment, type HookPayload } from '../hooks/hooks.js';
import type { PermissionAsker } from '../permissions/permission-asker.js';
import type { SettingsSource } from '../settings/settings-source.js';
import { ruleCovers, toolNames } from '../permissions/rules.js';
import type { GateIdentity } from '../hooks/hooks.js';
import { claudeToolCall, claudeToolResponse, teamdToolInput } from '../hooks/claude-tools.js';

/**
 * Permission rules and PreToolUse/PostToolUse hooks around every tool call. Order: the rules
 * decide (deny ends it), PreToolUse hooks run (exit 2 or a `deny` ends it; `ask` or `allow` may
 * change an undecided call), an `ask` goes to the lead, then the tool runs and PostToolUse hooks
 * see its output (exit 2 adds their feedback to the result). Every decision is logged with the task id.
 */
export class PolicyGate implements ToolGate {
  constructor(
    private readonly deps: {
      readonly identity: GateIdentity;
      readonly settings: SettingsSource;
      readonly asker: PermissionAsker;
      readonly hookEnv: HookEnvironment;
      readonly logger: Logger;
    },
  ) {}

  async before(tool: string, input: unknown, signal: AbortSignal): Promise<GateVerdict> {
    const { identity, logger } = this.deps;
    const settings = this.deps.settings.current();
    const taskId = identity.taskId();
    const record = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    let decision: Decision = decide(
      { tool, input: record, workspace: identity.root(), stateDir: identity.stateDir, extraRoots: identity.extraRoots?.() ?? [] },
      settings.rules,
    );
    const log = { taskId, tool };
    if (decision.kind === 'deny') {
      logger.info({ ...log, why: decision.why }, 'tool call denied');
      return { kind: 'refuse', content: `Permission denied: ${decision.why}. Do not try to get around it; do something else or tell the lead.` };
    }
    const hooks = await runHooks(settings.hooks.PreToolUse, toolNames(tool), this.payload('PreToolUse', tool, input), this.deps.hookEnv);
    if (hooks.block) {
      logger.info({ ...log, hook: hooks.block.command }, 'tool call blocked by a PreToolUse hook');
      return { kind: 'refuse', content: `Blocked by a PreToolUse hook: ${hooks.block.reason}` };
    }
    if (hooks.permission?.decision === 'deny') {
      logger.info({ ...log, why: hooks.permission.reason }, 'tool call denied by a PreToolUse hook');
      return { kind: 'refuse', content: `Permission denied by a hook: ${hooks.permission.reason}` };
    }
    if (hooks.permission) decision = { kind: hooks.permission.decision, why: hooks.permission.reason };
    // A hook written for Claude Code gives the input back in Claude Code's shape.
    const finalInput = hooks.updatedInput === undefined ? input : teamdToolInput(tool, hooks.updatedInput, input);
    if (decision.kind === 'ask') {
      this.notify(settings, `${identity.name} needs your permission to use ${claudeToolCall(tool, input, identity.root()).tool_name}`);
      const answer = await this.deps.asker.ask(
        { tool, input: finalInput, taskId, why: decision.why },
        settings.askTimeoutMs,
        settings.askTimeoutDecision,
        signal,
      );
      logger.info({ ...log, allowed: answer.allow, by: answer.by, reason: answer.reason }, answer.allow ? 'asked: allowed' : 'asked: refused');
      if (!answer.allow)
        return {
          kind: 'refuse',
          content: `Permission refused${answer.by === 'lead' ? ' by the lead' : ''}: ${answer.reason || 'no reason given'}. Do something else or tell the lead.`,
        };
      return { kind: 'run', input: finalInput };
    }
    logger.info({ ...log, why: decision.why }, 'tool call allowed');
    return { kind: 'run', input: finalInput };
  }

  async after(tool: string, input: unknown, result: ToolResult): Promise<ToolResult> {
    const settings = this.deps.settings.current();
    const groups = settings.hooks.PostToolUse;
    if (!groups || groups.length === 0) return result;
    const file = typeof (input as { path?: unknown } | null)?.path === 'string' ? (input as { path: string }).path : '';
    const hooks = await runHooks(
      groups,
      toolNames(tool),
      this.payload('PostToolUse', tool, input, {
        tool_response: claudeToolResponse(tool, input, this.deps.identity.root(), { content: result.content, isError: result.isError === true }),
      }),
      this.deps.hookEnv,
      { TEAMD_FILE: file },
    );
    // Claude Code gives the model a block's reason, and any additionalContext, after the tool's output.
    const notes = [
      ...(hooks.block ? [`[PostToolUse hook feedback] ${hooks.block.reason}`] : []),
      ...hooks.context.map((context) => `[PostToolUse hook] ${context}`),
    ];
    if (notes.length === 0) return result;
    if (hooks.block) this.deps.logger.info({ taskId: this.deps.identity.taskId(), tool, hook: hooks.block.command }, 'PostToolUse hook gave feedback');
    return { ...result, content: [result.content, ...notes].join('\n\n') };
  }

  readable(tool: string, file: string): boolean {
    const { rules } = this.deps.settings.current();
    const call = { tool, input: { path: file }, workspace: this.deps.identity.root() };
    return ![...rules.deny, ...rules.ask].some((rule) => ruleCovers(rule, call) !== 'none');
  }

  /** Notification hooks: the teammate waits for the person (they run beside the wait, never holding it up). */
  private notify(settings: ReturnType<SettingsSource['current']>, message: string): void {
    const groups = settings.hooks.Notification;
    if (!groups || groups.length === 0) return;
    const payload = hookPayload(this.deps.identity, 'Notification', { message, notification_type: 'permission_prompt', permission_mode: settings.rules.mode });
    // Matched on the kind of notification, as Claude Code matches Notification hooks.
    runHooks(groups, ['permission_prompt'], payload, this.deps.hookEnv).catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'a Notification hook could not run'),
    );
  }

  /** A tool event's payload, in Claude Code's shape (claude-tools.ts), with the settings' mode. */
  private payload(event: 'PreToolUse' | 'PostToolUse', tool: string, input: unknown, extra: Partial<HookPayload> = {}): HookPayload {
    const call = claudeToolCall(tool, input, this.deps.identity.root());
    return hookPayload(this.deps.identity, event, {
      ...call,
      ...(call.tool_name === tool ? {} : { teamd_tool: tool }),
      permission_mode: this.deps.settings.current().rules.mode,
      ...extra,
    });
  }
}
