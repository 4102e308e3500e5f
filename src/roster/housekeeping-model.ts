import type { TeamSettings } from '../contracts/roster.js';
import { OFFLINE_MODEL } from '../contracts/offline-model.js';

/**
 * The model a teammate uses for housekeeping (compaction summaries, one-shot helpers): its role's
 * `housekeepingModelByRole`, else the team's `housekeepingModel`, else its own model. A teammate
 * on the offline model keeps it for everything: it is given no API key.
 */
export function housekeepingModelOf(settings: Pick<TeamSettings, 'housekeepingModel' | 'housekeepingModelByRole'>, role: string, own: string): string {
  if (own === OFFLINE_MODEL) return OFFLINE_MODEL;
  return settings.housekeepingModelByRole[role] ?? settings.housekeepingModel ?? own;
}
