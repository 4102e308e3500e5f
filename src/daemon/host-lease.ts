import type { Logger } from '../log/logger.js';
import type { HostRegistry, Reclaimed } from '../contracts/host-registry.js';

export interface HostLeaseDeps {
  readonly hosts: HostRegistry;
  readonly host: string;
  readonly pid: number;
  readonly leaseMs: () => number;
  /** A lost host's teammates and the tasks that went back: the lead is told. */
  readonly onReclaimed: (reclaimed: Reclaimed) => Promise<void>;
  readonly logger: Logger;
}

/**
 * This host's lease in a shared store: a heartbeat every third of the lease, and after each beat a
 * look for other hosts whose lease ran out. The two never wait for each other: a reclaim held up
 * by another session's lock (bounded by the store's lock timeout) cannot delay the next beat, so
 * a healthy host is never counted lost for another's trouble. A beat that fails (the store is
 * down) is logged and tried again at the next one; neither overlaps itself.
 */
export class HostLease {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | null = null;
  private reclaiming: Promise<void> | null = null;
  private failing = false;
  private readonly beats: (() => void)[] = [];
  private readonly returns: (() => void)[] = [];
  /** The hosts heartbeating at the last look, in name order (this one included once it beats). */
  private live: string[] = [];

  constructor(private readonly deps: HostLeaseDeps) {}

  /** Called after each beat: the safety re-check of whatever waits on a notification (other hosts' requests). */
  onBeat(listener: () => void): void {
    this.beats.push(listener);
  }

  /** The team's live hosts as of the last beat, in name order: whose turn a ready task is (supervisor/ring-turns.ts). */
  liveHosts(): readonly string[] {
    return this.live;
  }

  /** Called when a beat finds this host had been counted lost: its teammates' tasks went back, and some may be others' now. */
  onReturn(listener: () => void): void {
    this.returns.push(listener);
  }

  async start(): Promise<void> {
    await this.tick();
    await this.reclaiming;
    this.timer = setInterval(
      () => {
        this.ticking ??= this.tick().finally(() => (this.ticking = null));
      },
      Math.max(250, Math.floor(this.deps.leaseMs() / 3)),
    );
    this.timer.unref();
  }

  /** Stops beating at once, saying nothing (the store did not answer a clean close). */
  abandon(): void {
    clearInterval(this.timer);
  }

  /** Stops beating; `leaving`: the daemon stops cleanly, and says so (other hosts take its teammates' tasks at once). */
  async close(leaving = false): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    await this.reclaiming;
    if (leaving)
      await this.deps.hosts
        .leave(this.deps.host)
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'could not tell the store this host stopped'));
  }

  private async tick(): Promise<void> {
    const { deps } = this;
    try {
      const { lost } = await deps.hosts.heartbeat(deps.host, deps.pid);
      if (this.failing) deps.logger.info('heartbeating in the store again');
      this.failing = false;
      if (lost) {
        deps.logger.warn(
          "this host had been counted lost (its lease ran out): its teammates' tasks went back to the board; each teammate now drops a task that is no longer its own",
        );
        for (const listener of this.returns) listener();
      }
    } catch (error) {
      if (!this.failing) deps.logger.warn({ err: error }, 'cannot heartbeat in the store; retrying at the next beat (other hosts may count this one lost)');
      this.failing = true;
      return;
    }
    // Not awaited by the beat: the next beat comes on time whatever the reclaim waits for.
    this.reclaiming ??= this.reclaim().finally(() => (this.reclaiming = null));
    for (const listener of this.beats) listener();
  }

  private async reclaim(): Promise<void> {
    const { deps } = this;
    try {
      this.live = (await deps.hosts.list())
        .filter((host) => !host.lost && !host.stopped)
        .map((host) => host.host)
        .sort();
      for (const reclaimed of await deps.hosts.reclaimExpired(deps.host, deps.leaseMs())) {
        deps.logger.warn(
          reclaimed,
          reclaimed.stopped
            ? `host ${reclaimed.host} stopped: its teammates' tasks went back to the board`
            : `host ${reclaimed.host} stopped heartbeating: its teammates are lost and their tasks went back to the board`,
        );
        await deps.onReclaimed(reclaimed);
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'could not look for lost hosts; looking again after the next beat');
    }
  }
}
