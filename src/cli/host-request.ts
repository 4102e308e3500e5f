import { setTimeout as sleep } from 'node:timers/promises';
import { TeamdError, type ErrorCode } from '../errors.js';
import type { HostRequest } from '../contracts/host-registry.js';
import type { TeamStore } from '../contracts/team-store.js';

const ANSWER_TIMEOUT_MS = 60_000;
const RECHECK_MS = 500;

/**
 * Asks another host's daemon, through the shared store, to spawn or stop one of its teammates,
 * and waits for its answer (woken by NOTIFY, looking again every 0.5 s, for at most a minute).
 * Its refusal comes back as the same error its own command would give.
 */
export async function askHost(store: TeamStore, host: string, request: HostRequest, timeoutMs = ANSWER_TIMEOUT_MS): Promise<unknown> {
  const { hosts, shared } = store;
  if (!hosts || !shared) throw new TeamdError('USAGE', '--host needs a shared store (teamd start --store postgres://…): the file store has one host');
  const known = (await hosts.list()).find((view) => view.host === host);
  if (!known || known.lost || known.stopped)
    throw new TeamdError(
      'DAEMON_NOT_RUNNING',
      `no daemon runs on the host ${host} for team ${shared.team}${known ? ` (it is ${known.lost ? 'lost' : 'stopped'})` : ''}: start it there (teamd start --host ${host})`,
    );
  let wake: (() => void) | null = null;
  const id = await hosts.ask(host, request);
  const listening = await store.listen(
    (event) => event.kind === 'answer' && event.id === id,
    () => wake?.(),
  );
  try {
    const deadline = Date.now() + timeoutMs;
    // Bounded by the deadline; each round waits for the answer's notification or the re-check.
    while (Date.now() < deadline) {
      const answer = await hosts.answerOf(id);
      if (answer) {
        if (answer.ok) return answer.result;
        throw new TeamdError(answer.code as ErrorCode, answer.message);
      }
      const woken = new Promise<void>((resolve) => (wake = resolve));
      await Promise.race([woken, sleep(RECHECK_MS)]);
    }
    throw new TeamdError(
      'DAEMON_NOT_RUNNING',
      `the daemon of ${host} did not answer within ${Math.round(timeoutMs / 1000)} s; the request stays for it (teamd status there)`,
    );
  } finally {
    await listening?.close();
  }
}
