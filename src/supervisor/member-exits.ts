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

/**
 * What follows a teammate's exit: the sweep for what it left, the log line, and then, by the
 * restart policy, nothing (a sleep, a shutdown, an announced error: its tasks go back as the
 * status says), a restart after a backoff (a crash: its task stays with it), or giving up (its
 * tasks go back, the lead is told). The roster's status is written last, so whoever sees it finds
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
          await this.notifyLead(name, `${name} crashed (${describeExit(exit)}); restarting in ${decision.afterMs} ms. Its task stays with it and is resumed.`);
          deps.roster.patchMember(name, { status: 'crashed', pid: null, restarts: (member?.restarts ?? 0) + 1, lastExit: describeExit(exit) });
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
