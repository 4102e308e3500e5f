import type { Task } from '../contracts/task.js';

/** What the model is told of a task that went back to the board while its host was counted lost. */
export const TAKEN_BACK = "it went back to the board while your host was cut off from the team, and may be another teammate's now";

/**
 * The unit of work running now, which can be stopped for its task alone (the process goes on):
 * its signal is aborted, and the task it was stopped for is kept until the unit has ended.
 */
export class RunningUnit {
  private current: AbortController | null = null;
  private stoppedFor: Task | null = null;

  /** A unit begins: its signal ends with the process's stop or with takeBack. */
  begin(stop: AbortSignal): { readonly signal: AbortSignal; readonly left: () => boolean } {
    const unit = (this.current = new AbortController());
    return { signal: AbortSignal.any([stop, unit.signal]), left: () => unit.signal.aborted };
  }

  end(): void {
    this.current = null;
  }

  /** Stops the running unit for `task`; false when no unit runs (the caller closes the task itself). */
  takeBack(task: Task): boolean {
    if (!this.current) return false;
    this.stoppedFor = task;
    this.current.abort(`task ${task.id} is no longer yours`);
    return true;
  }

  /** The task the unit that just ended was stopped for, once. */
  takenBack(): Task | null {
    const task = this.stoppedFor;
    this.stoppedFor = null;
    return task;
  }
}
