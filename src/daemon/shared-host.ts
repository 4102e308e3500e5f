import type { Logger } from '../log/logger.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Member } from '../contracts/roster.js';
import type { TeamStore } from '../contracts/team-store.js';
import { LEAD } from '../contracts/roster.js';
import { MemberPublisher } from '../store/member-publisher.js';
import type { SupervisorDeps } from '../supervisor/supervisor-deps.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { HostLease } from './host-lease.js';
import { HostRequests } from './host-requests.js';
import { within } from '../platform/within.js';

/** How long a stopping host tries to tell the store it leaves. */
const GOODBYE_MS = 3_000;

/**
 * This host's part in a team that several hosts share through the store: its roster published on
 * every change, its lease kept by heartbeats (a lost host's teammates' tasks given back, the lead
 * told), and what other hosts' commands ask of it served. None for the file store: one host.
 */
export class SharedHost {
  private serving: { requests: HostRequests; listening: { close(): Promise<void> } | null } | null = null;

  private constructor(
    private readonly store: TeamStore,
    private readonly host: string,
    private readonly publisher: MemberPublisher,
    private readonly lease: HostLease,
    private readonly logger: Logger,
  ) {}

  static open(options: {
    readonly store: TeamStore;
    readonly members: () => readonly Member[];
    readonly leaseMs: () => number;
    readonly mailbox: MailStore;
    readonly logger: Logger;
  }): SharedHost | null {
    const { store, mailbox, logger } = options;
    const { shared, hosts } = store;
    if (!shared || !hosts) return null;
    const publisher = new MemberPublisher((members) => store.members.publish(shared.host, members), logger);
    publisher.changed(options.members());
    const lease = new HostLease({
      hosts,
      host: shared.host,
      pid: process.pid,
      leaseMs: options.leaseMs,
      onReclaimed: async ({ host, members, released, stopped }) => {
        for (const name of members)
          await mailbox
            .send({
              from: name,
              to: LEAD,
              type: 'teammate_crashed',
              content: `${name} ${stopped ? `stopped with its host ${host}` : `is lost: its host ${host} stopped heartbeating`}.${released.length ? ` Task(s) ${released.join(', ')} went back to the board.` : ''}`,
            })
            .catch((error: unknown) => logger.warn({ err: error }, 'could not tell the lead about a lost host'));
      },
      logger,
    });
    return new SharedHost(store, shared.host, publisher, lease, logger);
  }

  /** The roster changed here: the store gets it. */
  changed(members: readonly Member[]): void {
    this.publisher.changed(members);
  }

  /** Where the supervisor finds members of other hosts, and waits for this host's roster to be in the store. */
  directory(): NonNullable<SupervisorDeps['directory']> {
    return {
      published: () => this.publisher.published(),
      hostOf: async (name: string) => (await this.store.members.list()).find((entry) => entry.member.name === name)?.host ?? null,
      host: this.host,
      isTurn: (id: number) => {
        const live = this.lease.liveHosts();
        const at = live.indexOf(this.host);
        return live.length <= 1 || at === -1 || id % live.length === at;
      },
    };
  }

  /** Heartbeats begin; other hosts' requests for this one are served, woken by NOTIFY and at each beat. */
  async start(supervisor: Pick<Supervisor, 'spawn' | 'shutdown' | 'tell'>): Promise<void> {
    // Back after being counted lost: a teammate still at a task given back stops at once, not at its next write.
    this.lease.onReturn(() => supervisor.tell(null, { type: 'recheck-claim' }));
    await this.lease.start();
    const requests = new HostRequests(this.store.hosts!, this.host, supervisor, this.logger);
    const listening = await this.store.listen(
      (event) => event.kind === 'request' && event.host === this.host,
      () => requests.serve(),
    );
    this.lease.onBeat(() => requests.serve());
    requests.serve();
    this.serving = { requests, listening };
  }

  /** No more requests served (before the teammates stop). */
  async stopServing(): Promise<void> {
    await this.serving?.listening?.close();
    await this.serving?.requests.close();
  }

  /**
   * The roster as the team last sees it (`published`: every teammate stopped), then no more beats:
   * `leaving` says so at once, else other hosts take this one's tasks after the lease.
   */
  async close(leaving: boolean): Promise<void> {
    const goodbye = (async () => {
      if (leaving) await this.publisher.published();
      this.publisher.close();
      await this.lease.close(leaving);
    })();
    // A store on a dead link answers nothing: the host stops anyway, and other hosts count it lost once its lease runs out.
    if (!(await within(goodbye, GOODBYE_MS))) {
      this.publisher.close();
      this.lease.abandon();
      this.logger.warn(
        `the store did not answer within ${GOODBYE_MS} ms: this host stops without saying so, and other hosts take its teammates' tasks once its lease runs out`,
      );
    }
  }
}
