import type { Logger } from '../log/logger.js';

/** Hints kept from the daemon's bells: the latest few ready tasks it named. */
const MAX_HINTS = 8;

/**
 * What a teammate keeps about its wake-ups: how many (safety re-checks not counted; reported to
 * the daemon in every status, so a bell is known to be answered), the tasks the daemon's bells
 * named (tried first, before any scan), and the CPU spent from a wake-up to the claim it led to.
 */
export class WakeTracker {
  private count = 0;
  private hints: number[] = [];
  private cpuAtWake: NodeJS.CpuUsage | null = null;
  /** The current idle spell was logged: once per spell, after the look that found nothing. */
  private idleLogged = false;

  constructor(private readonly logger: Logger) {}

  get wakes(): number {
    return this.count;
  }

  /** The daemon rang, naming a ready task (or none). */
  hint(task: number | null): void {
    if (task !== null && !this.hints.includes(task)) this.hints = [...this.hints.slice(-(MAX_HINTS - 1)), task];
  }

  /** The teammate woke for something (not a safety re-check). */
  woke(): void {
    this.cpuAtWake = process.cpuUsage();
    this.count++;
    this.logger.info({ wakes: this.count, hints: this.hints }, 'woke');
  }

  /** It looked and found nothing to take: logged once per idle spell, so `teamd logs <name>` shows it waits. */
  idle(): void {
    if (this.idleLogged) return;
    this.idleLogged = true;
    this.logger.info('idle: nothing to take; waiting for a message, a ready task or the safety re-check');
  }

  /** Work began: the next idle spell is logged again. */
  working(): void {
    this.idleLogged = false;
  }

  /** The named tasks, once: a later pass scans like anyone else. */
  takeHints(): number[] {
    const hints = this.hints;
    this.hints = [];
    return hints;
  }

  /** CPU microseconds from the last wake-up to now (a claim), once; undefined when no wake-up led here. */
  cpuSinceWake(): number | undefined {
    if (this.cpuAtWake === null) return undefined;
    const used = process.cpuUsage(this.cpuAtWake);
    this.cpuAtWake = null;
    return used.user + used.system;
  }
}
