import { lastSaid } from '../agent/conversation.js';
import { stalledDirective } from '../contracts/directives.js';
import type { ChatMessage } from '../contracts/model.js';
import { goalTasks, settled } from '../lead/goal-tasks.js';
import { isFinalReportOf, readRunRecord } from '../lead/run-record.js';
import type { Logger } from '../log/logger.js';
import { describeModelError } from '../model/model-errors.js';
import type { StatePaths } from '../paths.js';
import { LEAD, USER, type Member, type MemberStatus } from '../contracts/roster.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { TaskBoard } from '../contracts/task-board.js';
import { MAX_REMINDERS, type AfterUnit, type UnitEnd } from './after-unit.js';

/** The goal `teamd run` follows, as the lead agent sees it when a unit of work ends. */
export interface GoalView {
  /** The goal's message id (the goal= of the lead's directive). */
  readonly id: string;
  /** Why nothing is under way for it, or null when something is (an open task and a teammate to take it). */
  readonly stalled: string | null;
}

export interface LeadTurn {
  /** Stalled-goal reminders given in this stretch of work. */
  readonly reminders: number;
  /** The lead reported to the person in this stretch (a question, progress): it waits for their answer. */
  readonly reported: boolean;
}

export type GoalAction = { readonly action: 'none' } | { readonly action: 'remind' } | { readonly action: 'give-up'; readonly why: string };

/** Statuses of a teammate that takes no more work until the person acts. */
const OUT_OF_WORK: readonly MemberStatus[] = ['stopping', 'shutdown', 'errored', 'budget'];

/**
 * What the lead agent does about the goal being run when a unit of work ends (docs/lead.md).
 * A model ends its turn with the goal open and nothing under way (a text-only answer, a plan
 * never acted on): reminded twice, then the person is told, so `teamd run` ends instead of
 * waiting for a report that will never come. A lead that can work no more (refused, failed,
 * its key or budget gone) leaves a stalled goal the same way. Pure.
 */
export function decideForGoal(after: AfterUnit, end: UnitEnd, goal: GoalView | null, turn: LeadTurn): GoalAction {
  if (!goal) return { action: 'none' };
  switch (after.action) {
    case 'unusable':
      return { action: 'give-up', why: `the model cannot be used (${after.reason})` };
    case 'budget-spent':
      return { action: 'give-up', why: 'my token budget is spent' };
    case 'refused':
      return goal.stalled ? { action: 'give-up', why: `the model refused${after.text ? `: ${after.text.slice(0, 500)}` : ''}` } : { action: 'none' };
    case 'fail':
      return goal.stalled ? { action: 'give-up', why: `the model call failed: ${describeModelError(after.error)}` } : { action: 'none' };
    case 'nothing': {
      const endedTurn = end.kind === 'turn_end' && (end.reason === 'end_turn' || end.reason === 'idle');
      if (!endedTurn || !goal.stalled || turn.reported) return { action: 'none' };
      if (turn.reminders < MAX_REMINDERS) return { action: 'remind' };
      return { action: 'give-up', why: `I ended my turn ${turn.reminders + 1} times with nothing under way for it (${goal.stalled})` };
    }
    default:
      return { action: 'none' };
  }
}

/** Reads the goal being run and what is under way for it; tells the person when the lead stops on it. */
export class LeadGoal {
  constructor(
    private readonly deps: {
      readonly paths: StatePaths;
      readonly board: TaskBoard;
      readonly mailbox: MailStore;
      readonly members: () => readonly Member[];
      readonly logger: Logger;
    },
  ) {}

  /** The goal `teamd run` follows that the lead has not reported on, or null (none, or it cannot be read: then nothing changes). */
  async view(): Promise<GoalView | null> {
    try {
      const record = readRunRecord(this.deps.paths);
      if (!record) return null;
      const replies = await this.deps.mailbox.inbox(USER, record.userOffset);
      if (replies.messages.some((message) => isFinalReportOf(message, record))) return null;
      const listed = (await this.deps.board.list()).tasks;
      // Under way: any open task of the lead's, this goal's or an earlier one's (a goal queued behind another waits for it).
      const open = listed.filter((task) => task.createdBy === LEAD && !settled(task));
      if (open.length === 0)
        return {
          id: record.goalId,
          stalled: goalTasks(listed, record).length === 0 ? 'no task has been created for it' : 'every task created for it has ended',
        };
      if (open.some((task) => task.status === 'in_progress')) return { id: record.goalId, stalled: null };
      const able = this.deps.members().filter((member) => member.name !== LEAD && !OUT_OF_WORK.includes(member.status));
      if (able.length > 0) return { id: record.goalId, stalled: null };
      return { id: record.goalId, stalled: `task(s) ${open.map((task) => task.id).join(', ')} wait, but no teammate is on the team to take them` };
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not read the goal being run; the lead is not reminded of it');
      return null;
    }
  }

  /** After a unit of work: the stalled-goal reminder to give (the caller appends it and works on), or null, having told the person if the lead gave up. */
  async afterUnit(after: AfterUnit, end: UnitEnd, turn: LeadTurn, messages: readonly ChatMessage[]): Promise<string | null> {
    const goal = await this.view();
    const next = decideForGoal(after, end, goal, turn);
    if (!goal || next.action === 'none') return null;
    if (next.action === 'remind') return stalledDirective(goal.id, goal.stalled ?? '', turn.reminders + 1, MAX_REMINDERS);
    await this.giveUp(goal, next.why, lastSaid(messages));
    return null;
  }

  /** The person hears that the lead stopped on the goal: a final report on its behalf, so `teamd run` ends (not done). */
  async giveUp(goal: GoalView, why: string, lastSaid: string): Promise<void> {
    const said = lastSaid.trim() ? ` My last words were: "${lastSaid.trim().slice(0, 500)}"` : '';
    const content = `I stopped working on the goal without finishing it: ${why}.${said} (teamd sent this report for me.)`;
    this.deps.logger.warn({ goal: goal.id, why }, 'the lead stopped on the goal; the person is told');
    await this.deps.mailbox.send({ from: LEAD, to: USER, content, extra: { report: 'final', goal: goal.id } });
  }
}
