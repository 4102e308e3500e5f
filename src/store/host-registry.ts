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
  heartbeat(host: string, pid: number): Promise<void>;
  /** This host's daemon stops cleanly: no lease to wait out, other hosts take its teammates' tasks at their next beat. */
  leave(host: string): Promise<void>;
  /** Finds hosts (other than `self`) silent for `leaseMs` or stopped, marks each once, and releases its members' tasks. */
  reclaimExpired(self: string, leaseMs: number): Promise<Reclaimed[]>;
  list(): Promise<HostView[]>;
}
