import { TeamdError } from '../errors.js';
import type { RosterStore } from '../roster/roster-store.js';
import type { SupervisorDeps } from './supervisor-deps.js';

/** Refuses a model the daemon cannot serve before anything is spawned: a real model without a key, an id the API does not know. */
export async function checkModelFor(deps: Pick<SupervisorDeps, 'workerEnv' | 'checkModel'>, model: string): Promise<void> {
  if (model !== 'offline' && !deps.workerEnv.ANTHROPIC_API_KEY) {
    throw new TeamdError(
      'USAGE',
      `model ${model} needs ANTHROPIC_API_KEY in the daemon's environment: export it, then restart the daemon (teamd stop; teamd start), or use --model offline`,
    );
  }
  await deps.checkModel?.(model);
}

/** Writes a teammate's budget (or the team's, name null); returns who stopped for a budget and may try again. */
export function writeBudget(roster: RosterStore, name: string | null, tokens: number): string[] {
  if (name === null) roster.update((config) => ({ ...config, settings: { ...config.settings, teamBudgetTokens: tokens } }));
  else {
    roster.requireMember(name);
    roster.patchMember(name, { budgetTokens: tokens });
  }
  return roster
    .read()
    .members.filter((m) => m.status === 'budget' && (name === null || m.name === name))
    .map((m) => m.name);
}
