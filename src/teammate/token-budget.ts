import type { ChatMessage, Usage } from '../contracts/model.js';
import type { TeamConfig } from '../contracts/roster.js';
import type { Session } from './session-store.js';

/** A teammate's own budget and the team's, and what the other teammates have spent. */
export interface BudgetView {
  readonly member?: number | undefined;
  readonly team?: number | undefined;
  readonly othersSpent: number;
}

/** A teammate's budgets as the roster says now (read afresh: the person may raise either while it runs). */
export function rosterBudget(roster: () => TeamConfig, name: string): () => BudgetView {
  return () => {
    const now = roster();
    const othersSpent = now.members.filter((m) => m.name !== name).reduce((sum, m) => sum + (m.usage ? spentTokens(m.usage) : 0), 0);
    return { member: now.members.find((m) => m.name === name)?.budgetTokens, team: now.settings.teamBudgetTokens, othersSpent };
  };
}

export interface BudgetVerdict {
  readonly over: boolean;
  /** Which budget the next call would exceed, and its size: what the notice names. */
  readonly which: 'member' | 'team' | null;
  readonly limit: number | null;
}

export function spentTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Whether the next call (its estimated prompt and output) would exceed the teammate's or the team's budget. */
export function checkBudget(mine: Usage, nextCallTokens: number, view: BudgetView): BudgetVerdict {
  const spent = spentTokens(mine);
  if (view.member !== undefined && spent + nextCallTokens > view.member) return { over: true, which: 'member', limit: view.member };
  if (view.team !== undefined && view.othersSpent + spent + nextCallTokens > view.team) return { over: true, which: 'team', limit: view.team };
  return { over: false, which: null, limit: null };
}

/** What a stop for a budget says: which budget, and its size. */
export function budgetReason(verdict: BudgetVerdict): string {
  return `${verdict.which === 'team' ? "the team's" : 'its'} token budget (${verdict.limit}) is spent`;
}

/**
 * A teammate's budgets: checked before each call with the call's estimated size; once one is
 * spent it stays stopped, and the lead is told once per budget (remembered in the session, so
 * restarts do not tell again).
 */
export class BudgetGuard {
  private spent: BudgetVerdict | null = null;

  constructor(
    private readonly deps: {
      readonly session: Session;
      readonly view: () => BudgetView;
      /** The tokens the next call would take: its prompt and its output limit. */
      readonly nextCall: (messages: readonly ChatMessage[]) => number;
    },
  ) {}

  check(messages: readonly ChatMessage[]): BudgetVerdict {
    return checkBudget(this.deps.session.usage, this.deps.nextCall(messages), this.deps.view());
  }

  /** The budget that stopped it, if one did. */
  get stopped(): BudgetVerdict | null {
    return this.spent;
  }

  /** Records the stop: why, and whether the lead has yet to hear of this budget. */
  stop(verdict: BudgetVerdict): { reason: string; tell: boolean } {
    this.spent = verdict;
    const key = `${verdict.which}:${verdict.limit}`;
    const tell = this.deps.session.budgetNotice !== key;
    this.deps.session.budgetNotice = key;
    return { reason: budgetReason(verdict), tell };
  }
}
