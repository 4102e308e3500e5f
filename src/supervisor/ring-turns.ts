import type { ReadyTask } from './work-bells.js';

/** How long other hosts leave a ready task to the host whose turn it is before ringing for it too. */
export const HOLD_MS = 100;

/**
 * Across several hosts, every daemon hears of a new ready task at once, and each would ring one of
 * its idle teammates for it: all of them would race for one task, and all but one claim in vain
 * (on one machine, their work shares its cores). A task is first the turn of one live host (its
 * id modulo the live hosts, in name order); the others ring for it only once it has been ready for
 * HOLD_MS — when that host has nobody idle, or is gone. One host, or none known: every task is its turn.
 */
export class RingTurns {
  private readonly seen = new Map<number, number>();

  constructor(
    private readonly isTurn: (id: number) => boolean,
    private readonly now: () => number,
    private readonly holdMs = HOLD_MS,
  ) {}

  /** The ready tasks to ring for now, and in how many ms the first held one is due (null: none held). */
  split(ready: readonly ReadyTask[]): { now: ReadyTask[]; dueInMs: number | null } {
    const at = this.now();
    const ids = new Set(ready.map((task) => task.id));
    for (const id of this.seen.keys()) if (!ids.has(id)) this.seen.delete(id);
    const now: ReadyTask[] = [];
    let dueInMs: number | null = null;
    for (const task of ready) {
      if (!this.seen.has(task.id)) this.seen.set(task.id, at);
      const left = this.seen.get(task.id)! + this.holdMs - at;
      if (left <= 0 || this.isTurn(task.id)) now.push(task);
      else dueInMs = Math.min(dueInMs ?? left, left);
    }
    return { now, dueInMs };
  }
}
