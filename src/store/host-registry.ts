/** A host's daemon as a shared store sees it. */
export interface HostView {
  readonly host: string;
  readonly pid: number | null;
  readonly heartbeatAt: string;
  /** Its lease ran out (another host gave its teammates' tasks back), and it has not come back since. */
  readonly lost: boolean;
}

/** A lost host, and the tasks its teammates held that went back to the board. */
export interface Reclaimed {
  readonly host: string;
  readonly members: readonly string[];
  readonly released: readonly number[];
}

/**
 * The daemons of one team on several hosts (PostgreSQL store only): each heartbeats; a host
 * silent for longer than the lease is lost, and one surviving daemon gives its tasks back.
 */
export interface HostRegistry {
  heartbeat(host: string, pid: number): Promise<void>;
  /** Finds hosts (other than `self`) silent for `leaseMs`, marks each lost once, and releases its members' tasks. */
  reclaimExpired(self: string, leaseMs: number): Promise<Reclaimed[]>;
  list(): Promise<HostView[]>;
}
