import { TeamdError } from '../errors.js';
import { countsOf, type DumpCounts, type DumpableStore } from './team-dump.js';

/**
 * Copies a team's whole shared state from one store to another, with every daemon of both
 * stopped, into a target that holds nothing of the team yet; then reads the target back and
 * compares the counts. Nothing is removed from the source.
 */
export async function copyTeam(from: DumpableStore, to: DumpableStore): Promise<DumpCounts> {
  const running = [...(await from.running()), ...(await to.running())];
  if (running.length > 0) throw new TeamdError('DAEMON_RUNNING', `stop ${running.join(' and ')} first (teamd stop): a copy is made with the team stopped`);
  if (!(await to.isEmpty()))
    throw new TeamdError(
      'INVALID_TRANSITION',
      `${to.describe} already holds this team's tasks, messages or roster: copy into an empty store (nothing was changed)`,
    );
  const dump = await from.dump();
  const expected = countsOf(dump);
  await to.load(dump);
  const found = countsOf(await to.dump());
  const differ = (Object.keys(expected) as (keyof DumpCounts)[]).filter((key) => expected[key] !== found[key]);
  if (differ.length > 0)
    throw new TeamdError(
      'IO',
      `the copy in ${to.describe} does not match: ${differ.map((key) => `${key} ${found[key]} instead of ${expected[key]}`).join(', ')}`,
    );
  return found;
}
