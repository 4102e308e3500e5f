import { appendUser } from '../agent/conversation.js';
import { jobDirective } from '../contracts/directives.js';
import type { BackgroundJobs } from '../jobs/background-jobs.js';
import type { Session } from './session-store.js';
import { describeJob } from '../tools/job-tools.js';

/**
 * Tells the conversation how background jobs ended, once each: the notices go in and the session
 * is saved before the job records say `notified`, so a crash in between tells it again rather
 * than never.
 */
export class JobIntake {
  constructor(
    private readonly deps: {
      readonly jobs: Pick<BackgroundJobs, 'notices' | 'markNotified'>;
      readonly session: Session;
      /** Saves the session durably: on disk before the job records say `notified`. */
      readonly save: () => void;
    },
  ) {}

  /** True when a notice was put into the conversation for the model to read. */
  take(): boolean {
    const notices = this.deps.jobs.notices();
    if (notices.length === 0) return false;
    appendUser(
      this.deps.session.messages,
      notices.map(({ record, tail }) => ({
        type: 'text' as const,
        text: jobDirective({
          id: record.id,
          state: record.state,
          command: record.command,
          outcome: describeJob(record),
          durationMs: record.endedAt ? Date.parse(record.endedAt) - Date.parse(record.startedAt) : null,
          tail,
          cut: record.outputCut,
        }),
      })),
    );
    this.deps.save();
    this.deps.jobs.markNotified(notices.map((n) => n.record.id));
    return true;
  }
}
