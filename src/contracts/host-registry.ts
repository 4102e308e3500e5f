/** A host's daemon as a shared store sees it. */
export interface HostView {
  readonly host: string;
  readonly pid: number | null;
  readonly heartbeatAt: string;
  /** Its lease ran out (another host gave its teammates' tasks back), and it has not come back since. */
  readonly lost: boolean;
  /** Its daemon stopped cleanly (teamd stop). */
  readonly stopped: boolean;
}

/** A lost host, and the tasks its teammates held that went back to the board. */
export interface Reclaimed {
  readonly host: string;
  readonly members: readonly string[];
  readonly released: readonly number[];
  /** It stopped cleanly, rather than going silent. */
  readonly stopped: boolean;
}

/**
 * The daemons of one team on several hosts (PostgreSQL store only): each heartbeats; a host
 * silent for longer than the lease is lost, and one surviving daemon gives its tasks back.
 */
export interface HostRegistry {
  /**
   * Renews this host's lease. `lost`: it had been counted lost since its last beat (its teammates'
   * tasks went back to the board, and may be someone else's now): its teammates look at once.
   */
  heartbeat(host: string, pid: number): Promise<{ readonly lost: boolean }>;
  /** This host's daemon stops cleanly: no lease to wait out, other hosts take its teammates' tasks at their next beat. */
  leave(host: string): Promise<void>;
  /** Finds hosts (other than `self`) silent for `leaseMs` or stopped, marks each once, and releases its members' tasks. */
  reclaimExpired(self: string, leaseMs: number): Promise<Reclaimed[]>;
  list(): Promise<HostView[]>;
  /** Leaves a request for `host`'s daemon (its LISTEN wakes it); returns its id. */
  ask(host: string, request: HostRequest): Promise<string>;
  /** The answer to a request, once there is one. */
  answerOf(id: string): Promise<HostAnswer | null>;
  /** The requests left for `host`, each taken by one caller (a daemon) to answer. */
  take(host: string, handle: (request: HostRequest) => Promise<HostAnswer>): Promise<number>;
}

/** What one host may ask another's daemon: start a teammate there, or stop one of its teammates. */
export type HostRequest =
  | {
      readonly op: 'spawn';
      readonly name: string;
      readonly role: string;
      readonly prompt?: string;
      readonly model?: string;
      readonly plan?: boolean;
      readonly budgetTokens?: number;
    }
  | { readonly op: 'shutdown'; readonly name: string; readonly force: boolean };

export type HostAnswer = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly code: string; readonly message: string };
