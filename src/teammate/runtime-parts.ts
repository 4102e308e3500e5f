import { Compactor } from '../agent/compactor.js';
import { estimateTokens } from '../agent/conversation.js';
import { identityDirective } from '../agent/system-prompt.js';
import { currentTaskDirective } from '../contracts/directives.js';
import type { Message } from '../contracts/message.js';
import type { Usage } from '../contracts/model.js';
import { LEAD, USER } from '../contracts/roster.js';
import { statePaths } from '../paths.js';
import { ALL_TOOLS, ToolRegistry } from '../tools/registry.js';
import { InboxIntake } from './inbox-intake.js';
import { JobIntake } from './job-intake.js';
import { LeadGoal } from './lead-goal.js';
import type { ModelBackoff } from './model-backoff.js';
import { NextTask } from './next-task.js';
import { PlanGate } from './plan-gate.js';
import { assembleSystemPrompt } from './prompt-assembler.js';
import { RuntimeHooks } from './runtime-hooks.js';
import { StatusReport } from './status-report.js';
import { SubagentRunner } from './subagent.js';
import { todoListing } from '../agent/todos.js';
import { TaskInHand } from './task-in-hand.js';
import { TaskOutcomes } from './task-outcomes.js';
import type { TeammateDeps } from './teammate-deps.js';
import { TodoKeeper } from './todo-keeper.js';
import { BudgetGuard } from './token-budget.js';
import { WakeTracker } from './wake-tracker.js';

/** What a teammate's idle loop and its work on a unit share, and change, between them. */
export interface RuntimeState {
  /** The last system prompt assembled (prompt-assembler.ts): what the budget and compaction estimate with. */
  system: string;
  shutdownRequest: Message | null;
  backoff: ModelBackoff | null;
  /** Messages are in the conversation that the model has not answered yet (a call failed). */
  answerPending: boolean;
  /** Why the teammate takes no more work (a refused key or model); null while it can work. */
  unusable: string | null;
  /** The lead reported to the person (not final) in the current stretch of work. */
  reportedToPerson: boolean;
  /** Inside a unit of work (the model or a tool is running). */
  busy: boolean;
  /** The conversation was changed before its last messages (compaction, folding): the next save rewrites the session file. */
  rewriteSession: boolean;
}

/** The parts a teammate's runtime is made of, each with one job, wired once at its start. */
export interface RuntimeParts {
  readonly status: StatusReport;
  readonly wakes: WakeTracker;
  readonly next: NextTask;
  readonly budget: BudgetGuard;
  readonly plans: PlanGate;
  readonly intake: InboxIntake;
  readonly todos: TodoKeeper;
  readonly jobIntake: JobIntake;
  readonly hand: TaskInHand;
  readonly hooks: RuntimeHooks;
  readonly tools: ToolRegistry;
  readonly subagents: SubagentRunner;
  readonly outcomes: TaskOutcomes;
  /** The lead agent's view of the goal being run; null for a teammate. */
  readonly goal: LeadGoal | null;
  readonly compactor: Compactor;
}

/** What the parts call back into the runtime for. */
export interface RuntimeCalls {
  /** Saves the conversation; `durable` when another durable write depends on it. */
  save(durable: boolean): void;
  countUsage(usage: Usage): void;
  readonly stop: AbortSignal;
}

/** The initial state: idle, nothing pending, the system prompt assembled. */
export function initialState(deps: TeammateDeps): RuntimeState {
  return {
    system: assembleSystemPrompt(deps.identity, deps.knowledge),
    shutdownRequest: null,
    backoff: null,
    answerPending: false,
    unusable: null,
    reportedToPerson: false,
    busy: false,
    rewriteSession: false,
  };
}

/** Wires a teammate's parts to its dependencies and to each other. */
export function buildRuntimeParts(deps: TeammateDeps, state: RuntimeState, calls: RuntimeCalls): RuntimeParts {
  const { identity, session, logger, board, mailbox } = deps;
  const status = new StatusReport(deps.link);
  const wakes = new WakeTracker(logger);
  const next = new NextTask({ name: identity.name, board, wakes, logger, daemonCoversBoard: deps.daemonCoversBoard });
  const budget = new BudgetGuard({ session, view: deps.budget, nextCall: (messages) => estimateTokens(messages, state.system) + deps.maxTokens });
  const hand = new TaskInHand({ name: identity.name, workspace: identity.workspace, paths: statePaths(deps.stateDir), board, logger });
  const plans = new PlanGate({ name: identity.name, required: identity.planRequired, session, mailbox, current: () => hand.current });
  // Durable: the inbox cursor moves past these messages next.
  const intake = new InboxIntake({
    name: identity.name,
    session,
    consumer: deps.consumer,
    plans,
    verifyGrant: deps.verifyGrant,
    save: () => calls.save(true),
    // Made as this process starts, before it reads its inbox: earlier shutdown requests were for another process.
    startedAt: Date.now(),
    logger,
  });
  const todos = new TodoKeeper(session, deps.todos);
  // Durable: the job records say `notified` next.
  const jobIntake = new JobIntake({ jobs: deps.jobs, session, save: () => calls.save(true) });
  const policy = deps.makeGate?.({ taskId: () => hand.current?.id ?? null, root: () => hand.root, waiting: (on) => status.waiting(on) }) ?? null;
  const lead = deps.lead;
  const hooks = new RuntimeHooks(policy?.events ?? null, session, logger);
  return {
    status,
    wakes,
    next,
    budget,
    plans,
    intake,
    todos,
    jobIntake,
    hand,
    hooks,
    tools: new ToolRegistry(deps.tools ?? ALL_TOOLS, () => plans.approved(hand.current), policy?.gate ?? null, deps.mcp ?? null),
    subagents: new SubagentRunner({
      name: identity.name,
      model: deps.housekeeping?.client ?? deps.model,
      maxTokens: deps.housekeeping?.maxTokens ?? deps.maxTokens,
      compactThresholdTokens: deps.compactThresholdTokens,
      gate: policy?.gate ?? null,
      planApproved: () => plans.approved(hand.current),
      onUsage: (usage) => calls.countUsage(usage),
      overBudget: () => budget.check(session.messages).over,
      shouldStop: () => calls.stop.aborted,
      onStop: (description) => hooks.subagentStop(description),
    }),
    outcomes: new TaskOutcomes({
      name: identity.name,
      // The lead agent's own notices (refused, stopped) are for the person, not for itself.
      tellTo: lead ? USER : LEAD,
      board,
      mailbox,
      logger,
      claims: hand.claims,
    }),
    goal: lead ? new LeadGoal({ paths: statePaths(deps.stateDir), board, mailbox, members: () => lead.members(), logger }) : null,
    compactor: new Compactor({
      model: deps.housekeeping?.client ?? deps.model,
      thresholdTokens: deps.compactThresholdTokens,
      // The task's progress survives: the task in full, and its plan (todo_write) as it stands.
      context: () => [
        identityDirective(identity, hand.current),
        ...(hand.current ? [currentTaskDirective(hand.current, session.todos.length > 0 ? todoListing(session.todos) : null)] : []),
      ],
      beforeSummary: () => hooks.preCompact(),
    }),
  };
}
