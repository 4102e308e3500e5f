import type { Logger } from '../log/logger.js';
import type { StatePaths } from '../paths.js';
import { LEAD } from '../contracts/roster.js';
import type { RosterStore } from '../roster/roster-store.js';
import type { MailStore } from '../contracts/mail-store.js';
import { isoTime } from '../platform/iso-time.js';
import { cleanUpAfterTeammate } from './clean-up.js';
import type { MemberSlot } from './member-slot.js';
import { takesNoWork, type MemberWork } from './member-work.js';
import { decideRestart, describeExit, type RestartPolicy } from './restart-policy.js';

export interface MemberExitsDeps {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly roster: RosterStore;
  readonly mailbox: MailStore;
  readonly work: MemberWork;
  readonly policy: RestartPolicy;
  readonly now: () => number;
  /** The whole team is stopping: exits are expected, and swept once at the end. */
  readonly stopping: () => boolean;
  /** Look for work again soon (a teammate is gone, its tasks may be free). */
  readonly lookAgain: () => void;
  /** Start the teammate's process again (a restart after a crash). */
  readonly relaunch: (name: string) => void;
}

/** A restart this long after the crash leaves the task idle too long: it goes back to the board first. */
export const RELEASE_IF_RESTART_AFTER_MS = 1_000;

/**
 * Whether a crashed teammate's tasks go back to the board while it waits for its restart. After
 * one crash it is started again at once (100 ms) and resumes its task under the same claim. At a
 * second crash in a row within minUptimeMs of starting (a crash loop), or before a wait of a
 * second or more, the task goes back at once, so someone else can take it (issue 47); the
 * teammate, started again, resumes it under a new claim if nobody took it meanwhile.
 */
export function releasesOnRestart(unstableRestarts: number, afterMs: number): boolean {
  return unstableRestarts >= 2 || afterMs >= RELEASE_IF_RESTART_AFTER_MS;
}

/**
 * What follows a teammate's exit: the sweep for what it left, the log line, and then, by the
 * restart policy, nothing (a sleep, a shutdown, an announced error: its tasks go back as the
 * status says), a restart after a backoff (a crash after a stable run: its task stays with it;
 * a crash loop: its task goes back meanwhile, see releasesOnRestart), or giving up (its tasks go
 * back, the lead is told). The roster's status is written last, so whoever sees it finds
 * the board and the lead's inbox settled.
 */
export class MemberExits {
  constructor(private readonly deps: MemberExitsDeps) {}

  async handle(name: string, slot: MemberSlot, code: number | null, signal: NodeJS.Signals | null, pid: number | undefined): Promise<void> {
    const { deps } = this;
    const logger = deps.logger.child({ teammate: name });
    const stopping = deps.stopping();
    // While the whole team stops, one sweep after the last exit (stopAll) instead of one per teammate.
    if (!stopping) cleanUpAfterTeammate(deps.paths, pid, logger);
    const exit = { code, signal, expected: slot.expected !== null, startedAt: slot.startedAt, exitedAt: deps.now() };
    // An exit nobody asked for (a crash, a kill) is an error; a shutdown, a sleep or a stop is not.
    const line = { code, signal, expected: slot.expected, teammatePid: pid };
    if (slot.expected === null && !stopping && (signal !== null || code !== 0)) logger.error(line, 'teammate exited unexpectedly');
    else logger.info(line, 'teammate exited');
    if (stopping) {
      // Left for the next start: its task stays in progress and is resumed then.
      deps.roster.patchMember(name, { status: 'asleep', pid: null });
      return;
    }
    const decision = decideRestart(slot.history, exit, deps.policy);
    slot.history = decision.history;
    switch (decision.action) {
      case 'none': {
        const status = slot.expected ?? 'asleep';
        // Tasks first, status last: whoever sees the new status also sees the board settled.
        if (takesNoWork(status)) await deps.work.releaseTasksOf(name, `${name} ${status}`);
        deps.roster.patchMember(name, {
          status,
          pid: null,
          task: null,
          lastExit: describeExit(exit),
          problem: status === 'errored' || status === 'budget' ? slot.problem : null,
          retryAt: null,
        });
        deps.lookAgain();
        return;
      }
      case 'restart': {
        if (decision.diskFull) {
          // The lead's inbox is on the same disk: the roster (kept in memory, shown by status) says it.
          const retryAt = deps.now() + decision.afterMs;
          logger.warn({ afterMs: decision.afterMs }, 'teammate stopped: the disk is full; it starts again after the wait');
          deps.roster.patchMember(name, {
            status: 'crashed',
            pid: null,
            lastExit: describeExit(exit),
            problem: 'the disk is full: it cannot write its session or the board (free some space)',
            retryAt: isoTime(retryAt),
          });
        } else {
          const member = deps.roster.member(name);
          // A crash loop (or a long wait) would keep its task from the team meanwhile: it goes back now, fenced by its claim,
          // and this teammate, started again, resumes it if nobody took it meanwhile.
          const handBack = releasesOnRestart(decision.history.unstableRestarts, decision.afterMs);
          const released = handBack ? await deps.work.releaseTasksOf(name, `${name} crashed again; restarting in ${decision.afterMs} ms`) : [];
          const tasks =
            released.length > 0
              ? ` Task(s) ${released.join(', ')} went back to the board meanwhile.`
              : handBack
                ? ''
                : ' Its task stays with it and is resumed.';
          await this.notifyLead(name, `${name} crashed (${describeExit(exit)}); restarting in ${decision.afterMs} ms.${tasks}`);
          deps.roster.patchMember(name, {
            status: 'crashed',
            pid: null,
            restarts: (member?.restarts ?? 0) + 1,
            lastExit: describeExit(exit),
            ...(released.length > 0 ? { task: null } : {}),
          });
          if (released.length > 0) deps.lookAgain();
        }
        slot.restartTimer = setTimeout(() => {
          slot.restartTimer = null;
          if (!deps.stopping()) deps.relaunch(name);
        }, decision.afterMs);
        return;
      }
      case 'give-up': {
        const released = await deps.work.releaseTasksOf(name, `${name} errored`);
        // Notice before status: whoever sees "errored" finds the lead already told.
        await this.notifyLead(
          name,
          `${name} ${decision.reason}; it is marked errored and will not be restarted.${released.length ? ` Task(s) ${released.join(', ')} went back to the board.` : ''} See: teamd logs ${name}`,
        );
        deps.roster.patchMember(name, { status: 'errored', pid: null, lastExit: describeExit(exit) });
        deps.lookAgain();
        return;
      }
    }
  }

  private async notifyLead(name: string, content: string): Promise<void> {
    try {
      await this.deps.mailbox.send({ from: name, to: LEAD, type: 'teammate_crashed', content });
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not notify the lead');
    }
  }
}
