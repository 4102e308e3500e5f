import { parseTeamdPlan, planTaskDescription, type TeamdPlan } from '../../lead/teamd-plan.js';
import type { OfflineTurn } from './offline-types.js';
import { call, lastIndex, say, type Step } from './turns.js';

/** The key of a plan's task on the board: the goal's message id and the task's local id, so a repeat never creates it twice. */
export function planTaskKey(goalId: string, localId: string): string {
  return `goal-${goalId.slice(0, 8)}/${localId}`;
}

/**
 * The offline model as the lead agent (DESIGN §9), deterministic and stateless: given the
 * person's goal with a ```teamd-plan block, one call per turn — spawn the team, create each
 * task once (keyed, so a restart repeats nothing), answer plan requests (approve a plan for
 * one of the goal's tasks, reject any other), then look at the board after every message, and
 * report (final) once the goal's tasks have settled.
 */
export function decideLead(steps: readonly Step[]): OfflineTurn {
  // Goals in the order the person gave them (teamd run --queue adds one while another runs): the lead is on the first one it has not reported on.
  const goals = steps.flatMap((step, at) => {
    const directive = step.directive?.directive;
    return directive?.kind === 'message' && directive.from === 'user' ? [{ at, id: directive.goal ?? `goal${at}`, text: step.directive!.text }] : [];
  });
  const resultIds = new Set(steps.flatMap((s) => (s.result ? [s.result.id] : [])));
  const reported = new Set(
    steps.flatMap((s) => (s.toolUse?.name === 'report' && s.toolUse.input.final === true && resultIds.has(s.toolUse.id) ? [String(s.toolUse.input.goal)] : [])),
  );
  const current = goals.find((goal) => !reported.has(goal.id));
  if (!current) return say(goals.length === 0 ? 'Nothing to lead yet: waiting for a goal from the person.' : 'Reported; waiting for the next goal.');
  const goalId = current.id;
  const goalStep = { text: current.text };
  const since = steps.slice(current.at + 1);
  const results = new Map(since.flatMap((s) => (s.result ? [[s.result.id, s.result] as const] : [])));
  const calls = since.flatMap((s) => (s.toolUse ? [s.toolUse] : []));
  const answered = (name: string, match: (input: Record<string, unknown>) => boolean) =>
    calls.filter((c) => c.name === name && match(c.input) && results.has(c.id)).map((c) => ({ call: c, result: results.get(c.id)! }));
  const report = (content: string) => call('report', { content, final: true, goal: goalId });
  const parsed = parseTeamdPlan(goalStep.text);
  if (parsed === null) return report('Offline, I lead only goals with a ```teamd-plan block (docs/lead.md). Nothing was created.');
  if ('error' in parsed) return report(`The goal cannot be run: ${parsed.error}. Nothing was created.`);
  const { plan } = parsed;

  for (const member of plan.team)
    if (answered('spawn_teammate', (input) => input.name === member.name).length === 0)
      return call('spawn_teammate', { name: member.name, role: member.role, ...(member.plan ? { plan: true } : {}) });

  const boardIds = new Map<string, number>();
  for (const task of plan.tasks) {
    const key = planTaskKey(goalId, task.id);
    const made = answered('create_task', (input) => input.key === key).at(-1);
    if (made?.result.isError) return report(`Task "${task.subject}" could not be created: ${made.result.text}`);
    const id = made ? taskId(made.result.text) : null;
    if (id === null)
      return call('create_task', {
        subject: task.subject,
        description: planTaskDescription(task),
        blocked_by: task.blockedBy.map((local) => boardIds.get(local)!),
        key,
      });
    boardIds.set(task.id, id);
  }
  const ours = new Set(boardIds.values());

  // Plan requests: a plan for one of the goal's tasks is approved, any other is rejected.
  for (const step of since) {
    const directive = step.directive?.directive;
    if (directive?.kind !== 'message' || directive.type !== 'plan_approval_request' || !directive.request) continue;
    const requestId = directive.request;
    if (answered('review_plan', (input) => input.requestId === requestId).length > 0) continue;
    const fits = directive.task !== undefined && ours.has(directive.task);
    return call('review_plan', {
      requestId,
      approve: fits,
      feedback: fits ? `It fits task ${directive.task} of the goal.` : 'This is not one of the tasks of the goal: work only on those.',
    });
  }

  // After anything new (a message, or the tasks just created), look at the board; after the look, decide.
  const lastLook = lastIndex(since, (s) => s.toolUse?.name === 'list_tasks');
  const lastNews = lastIndex(since, (s) => s.directive !== undefined || s.toolUse?.name === 'create_task');
  if (lastLook === -1 || lastNews > lastLook) return call('list_tasks', {});
  const look = results.get(since[lastLook]!.toolUse!.id);
  const board = look && !look.isError ? boardOf(look.text) : null;
  if (!board) return say('Waiting for the team.');
  const mine = board.filter((task) => ours.has(task.id));
  const settled = mine.every((task) => ['completed', 'failed', 'cancelled'].includes(task.status) || (task.status === 'pending' && task.stuck));
  if (!settled) return say(`Waiting for the team: ${mine.filter((t) => t.status === 'completed').length} of ${ours.size} tasks completed.`);
  return report(finalReport(plan, boardIds, mine));
}

interface Listed {
  readonly id: number;
  readonly subject: string;
  readonly status: string;
  readonly stuck?: unknown;
}

function finalReport(plan: TeamdPlan, boardIds: ReadonlyMap<string, number>, mine: readonly Listed[]): string {
  const done = mine.filter((task) => task.status === 'completed');
  const notDone = mine.filter((task) => task.status !== 'completed');
  const line = (task: Listed) => `task ${task.id} (${task.subject}): ${task.status}${task.stuck ? ', stuck behind a task that failed' : ''}`;
  if (notDone.length === 0) return `Goal done: all ${done.length} tasks completed.\n${mine.map(line).join('\n')}`;
  return `Goal not done: ${done.length} of ${boardIds.size} tasks completed; not completed:\n${notDone.map(line).join('\n')}`;
}

function taskId(text: string): number | null {
  try {
    const id = (JSON.parse(text) as { id?: unknown }).id;
    return typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

function boardOf(text: string): Listed[] | null {
  try {
    const tasks = JSON.parse(text) as unknown;
    return Array.isArray(tasks) ? (tasks as Listed[]) : null;
  } catch {
    return null;
  }
}
