import type { Usage } from '../model/model-client.js';

/** A teammate's own budget and the team's, and what the other teammates have spent. */
export interface BudgetView {
  readonly member?: number | undefined;
  readonly team?: number | undefined;
  readonly othersSpent: number;
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
