import { requestDaemon } from '../daemon/control-client.js';
import { TeamdError } from '../errors.js';
import { answerRequest } from '../inbox/answer-request.js';
import type { MailStore } from '../contracts/mail-store.js';
import { findRequest } from '../inbox/request-scan.js';
import type { StatePaths } from '../paths.js';
import { readConfig } from '../roster/roster.js';
import { LEAD, USER } from '../contracts/roster.js';
import type { LeadPowers } from '../contracts/tool.js';
import type { TaskBoard } from '../contracts/task-board.js';

/**
 * The lead agent's powers: spawning and stopping go through the daemon (which checks names,
 * models and budgets as for `teamd spawn`); requests are answered as the lead, signed, and
 * only the kinds the settings (`leadAnswers`) let it answer; reports go to the person.
 */
export function leadPowers(deps: {
  readonly paths: StatePaths;
  readonly mailbox: MailStore;
  readonly board: Pick<TaskBoard, 'get'>;
  readonly scanFile: string | null;
}): LeadPowers {
  const { paths, mailbox, board, scanFile } = deps;
  return {
    members: () => readConfig(paths.config).members,
    async spawn(spec) {
      await requestDaemon(paths, { op: 'spawn', ...spec });
      return `spawned ${spec.name} (${spec.role})${spec.plan ? '; it submits a plan before changing anything' : ''}`;
    },
    async shutdown(name, force) {
      if (name === LEAD) throw new TeamdError('USAGE', 'you cannot shut yourself down; the person does (teamd shutdown lead)');
      const result = (await requestDaemon(paths, { op: 'shutdown', name, force }, 60_000)) as { rung?: string };
      return `${name} stopped (${result.rung ?? 'done'})`;
    },
    async answer(idOrPrefix, approve, feedback, kind) {
      const request = await findRequest(mailbox, board, paths, scanFile, idOrPrefix);
      if (request.kind !== kind)
        throw new TeamdError(
          'USAGE',
          `${request.requestId.slice(0, 8)} is a ${request.kind} request: answer it with ${request.kind === 'plan' ? 'review_plan' : 'answer_permission'}`,
        );
      const may = readConfig(paths.config).settings.leadAnswers;
      if (request.kind === 'permission' ? !may.permissions : !may.plans)
        throw new TeamdError(
          'USAGE',
          `${request.kind} requests are answered by the person (teamd approve|reject ${request.requestId.slice(0, 8)}); the setting leadAnswers.${request.kind === 'permission' ? 'permissions' : 'plans'} would let you. Tell the person if it is urgent (report)`,
        );
      await answerRequest(mailbox, board, request, { approve, feedback });
      return `${approve ? 'approved' : 'rejected'} ${request.from}'s ${request.kind} request ${request.requestId.slice(0, 8)}${request.taskId ? ` for task ${request.taskId}` : ''}`;
    },
    async requestPlan(name, taskId, note) {
      if (name === LEAD) throw new TeamdError('USAGE', 'you review plans; ask a teammate for one');
      if (!readConfig(paths.config).members.some((m) => m.name === name))
        throw new TeamdError('UNKNOWN_MEMBER', `no teammate named ${name} (list_teammates shows who is on the team)`);
      const task = await board.get(taskId);
      if (task.status !== 'pending' && task.status !== 'in_progress')
        throw new TeamdError('INVALID_TRANSITION', `task ${taskId} is ${task.status}: there is nothing left to plan`);
      if (task.status === 'in_progress' && task.owner !== name)
        throw new TeamdError('NOT_OWNER', `task ${taskId} is ${task.owner ?? 'someone else'}'s: ask ${task.owner ?? 'its owner'} for the plan instead`);
      const content = note.trim() || `Before you change anything for task ${taskId} (${task.subject}), send me your plan.`;
      await mailbox.send({ from: LEAD, to: name, content, extra: { planFor: taskId, taskId } });
      return `asked ${name} for a plan for task ${taskId}: its plan request will come to you (review_plan); until you approve it, ${name} changes nothing for that task`;
    },
    async report(content, final, goal) {
      await mailbox.send({ from: LEAD, to: USER, content, extra: { report: final ? 'final' : 'progress', ...(goal ? { goal } : {}) } });
      return final ? 'final report sent to the person' : 'reported to the person';
    },
  };
}
