import type { DaemonLink } from './daemon-link.js';
import type { ModelBackoff } from './model-backoff.js';
import { isoTime } from '../platform/iso-time.js';

export type ReportedStatus = 'idle' | 'working' | 'waiting-plan' | 'waiting-permission';

/** Tells the daemon what the teammate does, only when that changes (each report rewrites the roster). */
export class StatusReport {
  private last: string | null = null;
  private lastArgs: { task: number | null; backoff: ModelBackoff | null; wakes: number } = { task: null, backoff: null, wakes: 0 };

  constructor(private readonly link: DaemonLink) {}

  /** `wakes` is in the key: every wake-up is answered with a report, so the daemon knows its bell was heard. */
  send(status: ReportedStatus, task: number | null, backoff: ModelBackoff | null, wakes = 0, now = Date.now()): void {
    this.lastArgs = { task, backoff, wakes };
    const waiting = backoff && now < backoff.until ? backoff : null;
    const problem = waiting ? `model unavailable: ${waiting.reason}` : null;
    const retryAt = waiting ? isoTime(waiting.until) : null;
    const key = JSON.stringify([status, task, problem, retryAt, wakes]);
    if (this.last === key) return;
    this.last = key;
    this.link.send({ type: 'status', status, task, problem, retryAt, wakes });
  }

  /** A tool call waits for the lead's permission (on), or got its answer (off: back to working). */
  waiting(on: boolean): void {
    const { task, backoff, wakes } = this.lastArgs;
    this.send(on ? 'waiting-permission' : 'working', task, backoff, wakes);
  }
}
