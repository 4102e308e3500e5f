import type { TaskBoard } from '../contracts/task-board.js';
import { MAX_SUBJECT_CHARS } from '../contracts/task.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Logger } from '../log/logger.js';
import { LEAD, type Member } from '../contracts/roster.js';
import type { CronJob } from '../contracts/cron-job.js';
import type { Firing } from './scheduler.js';
import { firstLine } from '../text.js';
import { isoTime } from '../platform/iso-time.js';

export interface DeliverDeps {
  readonly mailbox: MailStore;
  readonly board: TaskBoard;
  readonly members: () => readonly Member[];
  readonly logger: Logger;
}

/** How a job is named in what the lead reads: `cron job c3 ("0 9 * * 1-5" to role:coder)`. */
export function describeCronJob(job: CronJob): string {
  const when = job.cron !== undefined ? `"${job.cron}"${job.tz ? ` ${job.tz}` : ''}` : `at ${job.at}`;
  return `${job.at !== undefined ? 'one-shot job' : 'cron job'} ${job.id} (${when}${job.task ? ', a task' : ''} to ${job.to})`;
}

/**
 * Carries out a firing: a `scheduled` message into each recipient's inbox (which wakes it), or a
 * new task on the board; missed runs and runs that reach nobody are told to the lead.
 */
export function scheduledDelivery(deps: DeliverDeps): (firing: Firing) => Promise<void> {
  const tellLead = async (job: CronJob, content: string): Promise<void> => {
    await deps.mailbox.send({ from: job.createdBy, to: LEAD, type: 'scheduled', content });
  };
  return async (firing) => {
    const { job } = firing;
    if (firing.kind === 'missed') {
      const count = `${firing.count}${firing.more ? '+' : ''} run${firing.count === 1 && !firing.more ? '' : 's'}`;
      await tellLead(
        job,
        `${describeCronJob(job)} missed ${count} since ${isoTime(firing.since)} while the daemon was not running; not replayed (a job with catchUp runs once on return). Its message: ${firstLine(job.message, 120)}`,
      );
      deps.logger.warn({ cronId: job.id, missed: firing.count, since: firing.since }, 'scheduled runs were missed while the daemon was down');
      return;
    }
    const note = firing.catchingUp ? `\n\n(Catching up: ${firing.catchingUp.count} run(s) were missed since ${isoTime(firing.catchingUp.since)}.)` : '';
    const role = job.to.startsWith('role:') ? job.to.slice(5) : undefined;
    if (job.task) {
      const task = await deps.board.add({ subject: subjectOf(job.message), description: `${job.message}${note}`, role });
      deps.logger.info({ cronId: job.id, taskId: task.id, scheduledFor: firing.scheduledFor }, 'scheduled task added');
      return;
    }
    const recipients = role === undefined ? [job.to] : deps.members().flatMap((m) => (m.role === role ? [m.name] : []));
    if (recipients.length === 0) {
      await tellLead(job, `${describeCronJob(job)} came due, but no teammate has the role ${role}: nobody got it. Its message: ${firstLine(job.message, 120)}`);
      return;
    }
    for (const to of recipients) {
      try {
        await deps.mailbox.send({ from: job.createdBy, to, type: 'scheduled', content: `${job.message}${note}` });
      } catch (error) {
        await tellLead(job, `${describeCronJob(job)} could not reach ${to}: ${(error as Error).message}`);
      }
    }
    deps.logger.info({ cronId: job.id, to: recipients, scheduledFor: firing.scheduledFor }, 'scheduled message sent');
  };
}

function subjectOf(message: string): string {
  const line = firstLine(message, 120).trim();
  return line.length > MAX_SUBJECT_CHARS ? `${line.slice(0, MAX_SUBJECT_CHARS - 1)}…` : line || 'scheduled task';
}
