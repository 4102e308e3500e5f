import * as z from 'zod';
import { PLAN_REQUIRED_MARKER } from '../../contracts/directives.js';
import { call, flatten, lastIndex, say, type Step } from './turns.js';
import { decideLead } from './lead-policy.js';
import type { OfflineRequest, OfflineTurn } from './offline-types.js';

export { PLAN_REQUIRED_MARKER } from '../../contracts/directives.js';

/**
 * The offline model: deterministic, stateless (everything it needs is in the conversation).
 * For a task it runs each line of the description's ```sh block with bash, one call per line,
 * then completes the task with the outputs — or fails it on the first non-zero exit. It answers
 * a message with one short reply to its sender (not to an automatic reply, so two offline
 * teammates never ping-pong), and asks for plan approval first when the plan is required.
 */
export function decideOffline(request: OfflineRequest): OfflineTurn {
  const steps = flatten(request.messages);
  if (steps.at(-1)?.directive?.directive.kind === 'summarize') return say(summarize(steps));
  // The lead agent (it has the lead's tools): it leads a goal instead of doing tasks.
  if (request.tools.includes('spawn_teammate') && request.tools.includes('review_plan')) return decideLead(steps);
  const last = lastIndex(
    steps,
    (s) => s.directive !== undefined && ['task', 'resume', 'message', 'plan', 'remind', 'released', 'job', 'subtask'].includes(s.directive.directive.kind),
  );
  if (last === -1) return say('Nothing to do; going idle.');
  const { directive, text } = steps[last]!.directive!;
  const after = steps.slice(last + 1);
  if (directive.kind === 'released') {
    // A message taken in just before the task was taken back (no turn of the model between them) is still answered.
    const asked = lastIndex(steps.slice(0, last), (s) => s.directive?.directive.kind === 'message');
    const unanswered = asked !== -1 && !steps.slice(asked + 1).some((s) => s.toolUse);
    if (unanswered) {
      const message = steps[asked]!.directive!;
      if (message.directive.kind === 'message' && message.directive.from !== request.teammate)
        return call('send_message', { to: message.directive.from, content: `Got it: ${firstLine(message.text.split('\n').slice(2).join('\n'), 80)}` });
    }
    return say(`Understood: task ${directive.id} is no longer mine.`);
  }
  if (directive.kind === 'subtask') return helperTurn(request, text, after);
  // A background job ended: noted, and back to the open task if there is one.
  if (directive.kind === 'job') {
    const next = workOnTask(request, steps);
    return next.stop_reason === 'tool_use' ? next : say(`Noted: background job ${directive.id} ended (${directive.state}).`);
  }

  if (directive.kind === 'message') {
    // Replied already: back to the task the message interrupted, if any.
    if (after.some((s) => s.toolUse)) return workOnTask(request, steps, 'Replied.');
    const content = text.split('\n').slice(2).join('\n');
    if (directive.from === request.teammate || content.startsWith('Got it')) return say('Noted.');
    return call('send_message', { to: directive.from, content: `Got it: ${firstLine(content, 80)}` });
  }
  return workOnTask(request, steps);
}

function workOnTask(request: OfflineRequest, steps: readonly Step[], idle = 'Nothing to do; going idle.'): OfflineTurn {
  const taskAt = lastIndex(steps, (s) => s.directive?.directive.kind === 'task' || s.directive?.directive.kind === 'resume');
  if (taskAt === -1) return say(idle);
  const taskDirective = steps[taskAt]!.directive!;
  const id = (taskDirective.directive as { id: number }).id;
  if (steps.slice(taskAt).some((s) => s.directive?.directive.kind === 'released' && s.directive.directive.id === id)) return say(idle);
  // Work done before a restart still counts: start from the original assignment of this task.
  const origin = lastIndex(steps, (s) => s.directive?.directive.kind === 'task' && (s.directive.directive as { id: number }).id === id);
  const since = steps.slice(origin === -1 ? taskAt : origin);
  const uses = since.flatMap((s) => (s.toolUse ? [s.toolUse] : []));
  const results = new Map(since.flatMap((s) => (s.result ? [[s.result.id, s.result] as const] : [])));
  const finishing = uses.filter((u) => (u.name === 'complete_task' || u.name === 'fail_task') && results.has(u.id));
  if (finishing.some((u) => !results.get(u.id)!.isError)) return say(`Task ${id} is finished.`);
  // The board refused (say, the task was taken away): say so and stop rather than retry forever.
  if (finishing.length > 0) return say(`Could not finish task ${id}: ${tail(results.get(finishing.at(-1)!.id)!.text, 300)}`);
  // A plan is for one claim: claimed again, the plan is submitted again (the work done still counts).
  const reclaimed = lastIndex(
    steps,
    (s) => s.directive?.directive.kind === 'resume' && s.directive.directive.id === id && s.directive.directive.claim !== undefined,
  );
  const forClaim = reclaimed > (origin === -1 ? taskAt : origin) ? steps.slice(reclaimed) : since;
  const plans = forClaim.flatMap((s) => (s.directive?.directive.kind === 'plan' ? [s.directive.directive] : []));
  const commands = shellCommands(taskDirective.text);
  const planAsked = steps.some((s) => s.directive?.directive.kind === 'message' && s.directive.directive.planFor === id);
  if ((request.system.includes(PLAN_REQUIRED_MARKER) || planAsked) && !plans.some((p) => p.approve)) {
    if (plans.length > 0 && !plans.at(-1)!.approve) return call('fail_task', { id, reason: 'the lead rejected the plan' });
    if (forClaim.some((s) => s.toolUse?.name === 'submit_plan')) return say('Waiting for the lead to approve the plan.');
    return call('submit_plan', { plan: `Task ${id}: run ${commands.length} command(s):\n${commands.map((c) => `- ${c}`).join('\n')}` });
  }
  const carried = openTask(steps)?.carried ?? 0;
  const scripted = teamdCalls(taskDirective.text);
  if (scripted)
    return runScriptedCalls(
      request,
      id,
      scripted,
      carried,
      uses.filter((u) => u.name !== 'submit_plan' && results.has(u.id)),
      results,
    );
  const bashRuns = uses.filter((u) => u.name === 'bash' && results.has(u.id));
  const failed = bashRuns.find((u) => results.get(u.id)!.isError);
  if (failed) {
    return call('fail_task', { id, reason: `\`${String(failed.input.command)}\` failed: ${tail(results.get(failed.id)!.text, 400)}` });
  }
  if (carried + bashRuns.length < commands.length) return call('bash', { command: commands[carried + bashRuns.length] });
  const outputs = bashRuns.map((u) => `$ ${String(u.input.command)}\n${results.get(u.id)!.text}`).join('\n');
  return call('complete_task', { id, result: tail(outputs || 'done (no commands)', 4000) });
}

/** A one-shot helper: the prompt's ```sh lines with bash (when it has bash), then a report of what they printed. */
function helperTurn(request: OfflineRequest, text: string, after: readonly Step[]): OfflineTurn {
  const description = text.split('\n')[1] ?? 'the job';
  const commands = request.tools.includes('bash') ? shellCommands(text) : [];
  const results = new Map(after.flatMap((s) => (s.result ? [[s.result.id, s.result] as const] : [])));
  const runs = after.flatMap((s) => (s.toolUse?.name === 'bash' && results.has(s.toolUse.id) ? [s.toolUse] : []));
  if (runs.length < commands.length) return call('bash', { command: commands[runs.length] });
  const outputs = runs.map((u) => `$ ${String(u.input.command)}\n${results.get(u.id)!.text}`).join('\n');
  return say(`Report on "${description}": ${outputs ? `\n${tail(outputs, 2000)}` : 'nothing to run; looked and found nothing to report.'}`);
}

interface ScriptedCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
  readonly allowError?: boolean | undefined;
}

const scriptedCallsSchema = z.array(
  z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}), allowError: z.boolean().optional() }),
);

/** The tool calls of a task's ```teamd-calls block (DESIGN §9), or why the block is unusable; null without one. */
export function teamdCalls(text: string): { calls: ScriptedCall[] } | { error: string } | null {
  const block = /```teamd-calls\n([\s\S]*?)```/.exec(text);
  if (!block) return null;
  let json: unknown;
  try {
    json = JSON.parse(block[1]!);
  } catch (error) {
    return { error: `its teamd-calls block is not valid JSON (${(error as Error).message})` };
  }
  const parsed = scriptedCallsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `its teamd-calls block is not a list of {"name", "input"} calls (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})` };
  }
  return { calls: parsed.data };
}

/** Issues the scripted calls in order, one a turn; fails the task on a bad block or the first error; completes it with the outputs. */
function runScriptedCalls(
  request: OfflineRequest,
  id: number,
  scripted: NonNullable<ReturnType<typeof teamdCalls>>,
  /** Calls made before a summary replaced them. */
  carried: number,
  done: readonly { id: string; name: string }[],
  results: ReadonlyMap<string, { text: string; isError: boolean }>,
): OfflineTurn {
  if ('error' in scripted) return call('fail_task', { id, reason: `task ${id}: ${scripted.error}` });
  for (const [i, use] of done.slice(0, Math.max(0, scripted.calls.length - carried)).entries()) {
    const result = results.get(use.id)!;
    if (result.isError && scripted.calls[carried + i]!.allowError !== true)
      return call('fail_task', { id, reason: `${use.name} failed: ${tail(result.text, 400)}` });
  }
  if (carried + done.length < scripted.calls.length) {
    const next = scripted.calls[carried + done.length]!;
    // As a model can: only a tool the request offers now (an MCP server's tools come and go).
    if (!request.tools.includes(next.name))
      return call('fail_task', { id, reason: `task ${id}: its teamd-calls block names an unknown tool "${next.name}" (known: ${request.tools.join(', ')})` });
    return call(next.name, next.input);
  }
  const outputs = done.map((u) => `${u.name}: ${results.get(u.id)!.text}`).join('\n');
  return call('complete_task', { id, result: tail(outputs || 'done (no calls)', 4000) });
}

/** The lines of the first ```sh (or ```bash) block, without blanks and comments. */
export function shellCommands(text: string): string[] {
  const block = /```(?:sh|bash|shell)\n([\s\S]*?)```/.exec(text);
  if (!block) return [];
  return block[1]!
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

/** A summary the offline model can pick up again: how far its open task got. */
function summarize(steps: readonly Step[]): string {
  const tasks = [...new Set(steps.flatMap((s) => (s.directive && 'id' in s.directive.directive ? [s.directive.directive.id] : [])))];
  const tools = steps.filter((s) => s.toolUse).length;
  const open = openTask(steps);
  const progress = open ? ` Progress: task ${open.id}, ${open.carried + open.done.length} calls done.` : '';
  return `Summary: ${tools} tool calls${tasks.length ? `, about task(s) ${tasks.join(', ')}` : ''}.${progress}`;
}

/** The task the conversation is on, the calls made for it since its directive, and those a summary says were made before. */
function openTask(steps: readonly Step[]): { id: number; carried: number; done: { id: string; name: string }[] } | null {
  const at = lastIndex(steps, (s) => s.directive?.directive.kind === 'task' || s.directive?.directive.kind === 'resume');
  if (at === -1) return null;
  const id = (steps[at]!.directive!.directive as { id: number }).id;
  const origin = lastIndex(steps, (s) => s.directive?.directive.kind === 'task' && (s.directive.directive as { id: number }).id === id);
  const since = steps.slice(origin === -1 ? at : origin);
  const results = new Set(since.flatMap((s) => (s.result ? [s.result.id] : [])));
  const done = since.flatMap((s) => (s.toolUse && s.toolUse.name !== 'submit_plan' && results.has(s.toolUse.id) ? [s.toolUse] : []));
  // The original directive was summarized away: the summary says how far the task got.
  const carried = origin === -1 ? carriedProgress(steps, id) : 0;
  return { id, carried, done };
}

function carriedProgress(steps: readonly Step[], id: number): number {
  const summary = steps.findLast((s) => s.directive?.directive.kind === 'summary');
  const match = summary ? new RegExp(`Progress: task ${id}, (\\d+) calls done`).exec(summary.directive!.text) : null;
  return match ? Number(match[1]) : 0;
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function tail(text: string, max: number): string {
  return text.length > max ? `…${text.slice(-max)}` : text;
}
