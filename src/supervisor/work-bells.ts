/** What the daemon knows of a running teammate from its IPC reports. */
interface Listener {
  idle: boolean;
  /** Rung and not answered yet (every wake is answered with a status report), and for which task. */
  rungAt: number | null;
  rungFor: number | null;
  idleSince: number;
}

/** A ready task, and the role it is meant for. */
export interface ReadyTask {
  readonly id: number;
  readonly role: string | null;
}

/** A bell not answered within this long counts as lost: the teammate may be rung again. */
const ANSWER_MS = 5_000;

/**
 * Which idle teammates to ring when ready work appears: at most one per ready task that no rung
 * teammate is already on its way to, the longest idle first, and never the same teammate twice
 * for the same task (one that looked and left it — it gave that task up before — is not rung in
 * a loop); a task meant for a role goes first to an idle teammate of that role. The bells are hints: each teammate claims under the lock, and its own safety re-check
 * finds work even if no bell ever comes.
 */
export class WorkBells {
  private readonly listeners = new Map<string, Listener>();
  /** Ready task -> teammates already rung for it; forgotten once the task is no longer ready. */
  private readonly offered = new Map<number, Set<string>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A status report: the teammate is idle or working, and any bell it had is answered. */
  reported(name: string, status: 'idle' | 'working'): void {
    const listener = this.listeners.get(name) ?? { idle: false, rungAt: null, rungFor: null, idleSince: this.now() };
    if (status === 'idle' && !listener.idle) listener.idleSince = this.now();
    listener.idle = status === 'idle';
    listener.rungAt = null;
    listener.rungFor = null;
    this.listeners.set(name, listener);
  }

  /** The process ended: nobody to ring. */
  gone(name: string): void {
    this.listeners.delete(name);
    for (const names of this.offered.values()) names.delete(name);
  }

  /** Idle teammates that no bell is pending for. */
  available(): number {
    let count = 0;
    for (const listener of this.listeners.values()) if (listener.idle && !this.awaiting(listener)) count++;
    return count;
  }

  /** Rung teammates that have not answered yet: each will take one ready task. */
  inFlight(): number {
    let count = 0;
    for (const listener of this.listeners.values()) if (this.awaiting(listener)) count++;
    return count;
  }

  /**
   * Chooses whom to ring for the ready tasks (lowest id first) and marks them rung. A task meant
   * for a role goes to an idle teammate of that role when there is one (`roleOf` gives members' roles).
   */
  choose(readyTasks: readonly (number | ReadyTask)[], roleOf: (name: string) => string | undefined = () => undefined): { name: string; task: number }[] {
    const tasks = readyTasks.map((task): ReadyTask => (typeof task === 'number' ? { id: task, role: null } : task));
    const ready = tasks.map((task) => task.id);
    for (const id of this.offered.keys()) if (!ready.includes(id)) this.offered.delete(id);
    const idle = [...this.listeners]
      .filter(([, listener]) => listener.idle && !this.awaiting(listener))
      .sort(([, a], [, b]) => a.idleSince - b.idleSince)
      .map(([name]) => name);
    const onTheirWay = new Set([...this.listeners.values()].filter((listener) => this.awaiting(listener)).map((listener) => listener.rungFor));
    const rings: { name: string; task: number }[] = [];
    let spare = ready.length - this.inFlight();
    for (const { id: task, role } of tasks) {
      if (spare <= 0 || idle.length === 0) break;
      if (onTheirWay.has(task)) continue;
      const tried = this.offered.get(task) ?? new Set<string>();
      const matching = role === null ? -1 : idle.findIndex((name) => !tried.has(name) && roleOf(name) === role);
      const index = matching >= 0 ? matching : idle.findIndex((name) => !tried.has(name));
      if (index < 0) continue;
      const [name] = idle.splice(index, 1) as [string];
      tried.add(name);
      this.offered.set(task, tried);
      const listener = this.listeners.get(name)!;
      listener.rungAt = this.now();
      listener.rungFor = task;
      rings.push({ name, task });
      spare--;
    }
    return rings;
  }

  private awaiting(listener: Listener): boolean {
    return listener.rungAt !== null && this.now() - listener.rungAt < ANSWER_MS;
  }
}
