import { describe, expect, it } from 'vitest';
import { runHooks, type HookPayload } from '../../src/hooks/hooks.js';
import { createLogger } from '../../src/log/logger.js';
import type { HookGroup } from '../../src/settings/settings.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const payload: HookPayload = {
  hook_event_name: 'PreToolUse',
  session_id: 's',
  transcript_path: '/state/sessions/alice.jsonl',
  cwd: '/',
  teammate: 'alice',
  role: 'coder',
  task_id: 3,
  tool_name: 'bash',
  tool_input: { command: 'ls' },
};
const group = (command: string, matcher: string | null = null, timeoutMs = 10_000): HookGroup => ({
  matcher: matcher === null ? null : new RegExp(`^(?:${matcher})$`),
  hooks: [{ command, timeoutMs }],
});

describe('hook commands', () => {
  const env = () => ({ workspace: makeTempDir(), env: process.env, logger: createLogger() });

  it('read the event on stdin; JSON output may deny, ask or replace the input; the strictest decision wins', async () => {
    const outcome = await runHooks(
      [
        group(
          `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const e=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{permissionDecision:'allow',updatedInput:{command:e.tool_input.command+' -la'}}}))})"`,
        ),
        group(`echo '{"permissionDecision": "ask", "reason": "a person should look"}'`),
      ],
      ['bash', 'Bash'],
      payload,
      env(),
    );
    expect(outcome.block).toBeNull();
    expect(outcome.permission).toEqual({ decision: 'ask', reason: 'a person should look' });
    expect(outcome.updatedInput).toEqual({ command: 'ls -la' });
    const denied = await runHooks(
      [group(`echo '{"permissionDecision":"deny","permissionDecisionReason":"no"}'`), group(`echo '{"permissionDecision":"allow"}'`)],
      ['bash'],
      payload,
      env(),
    );
    expect(denied.permission).toEqual({ decision: 'deny', reason: 'no' });
  });

  it('exit 2 blocks with stderr; another exit code or output that is not JSON is a warning and the call goes on; decision block blocks', async () => {
    expect((await runHooks([group('echo "stop right there" >&2; exit 2')], ['bash'], payload, env())).block).toMatchObject({ reason: 'stop right there' });
    const failed = await runHooks([group('echo oops >&2; exit 1'), group('echo not json')], ['bash'], payload, env());
    expect(failed.block).toBeNull();
    expect(failed.runs.map((run) => run.code)).toEqual([1, 0]);
    expect((await runHooks([group(`echo '{"decision":"block","reason":"style"}'`)], ['bash'], payload, env())).block).toMatchObject({ reason: 'style' });
  });

  it("matchers are regexes over teamd's and Claude Code's tool names; events without a tool run every group", async () => {
    const groups = [group('exit 2', 'Edit|Write')];
    expect((await runHooks(groups, ['write_file', 'Write'], payload, env())).block).not.toBeNull();
    expect((await runHooks(groups, ['bash', 'Bash'], payload, env())).runs).toHaveLength(0);
    expect((await runHooks(groups, null, payload, env())).runs).toHaveLength(1);
  });

  it('a hook that hangs is killed with what it started at its timeout; one that floods its output is cut', async () => {
    const workspace = makeTempDir();
    const hung = await runHooks([group('sleep 30 & sleep 30', null, 300)], ['bash'], payload, { ...env(), workspace });
    expect(hung.runs[0]).toMatchObject({ timedOut: true });
    expect(hung.block).toBeNull();
    const flood = await runHooks([group("head -c 5000000 /dev/zero | tr '\\\\0' y; exit 0")], ['bash'], payload, env());
    expect(flood.runs[0]!.stdout.length).toBeLessThan(70 * 1024);
    expect(flood.runs[0]!.stdout).toMatch(/more bytes left out\]$/);
  });
});
