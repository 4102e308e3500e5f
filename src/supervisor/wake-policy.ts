import type { Member } from '../contracts/roster.js';

export interface WakeInput {
  /** Members asleep with no process and no restart pending, in roster order. */
  readonly asleep: readonly Member[];
  /** Names among them with messages past their cursor. */
  readonly withUnread: ReadonlySet<string>;
  /** Names among them owning a task still in progress (work to resume). */
  readonly withOpenTask: ReadonlySet<string>;
  /** Ready tasks on the board. */
  readonly readyTasks: number;
  /** Members running and idle (or starting): they will claim ready tasks themselves. */
  readonly awakeAvailable: number;
}

/**
 * Which sleeping members to wake: everyone with mail or unfinished work of their own, then as
 * many others as there are ready tasks that the awake members cannot take.
 */
export function chooseWakeUps(input: WakeInput): string[] {
  const wake = input.asleep.filter((member) => input.withUnread.has(member.name) || input.withOpenTask.has(member.name)).map((member) => member.name);
  let spare = input.readyTasks - input.awakeAvailable - wake.length;
  for (const member of input.asleep) {
    if (spare <= 0) break;
    if (wake.includes(member.name)) continue;
    wake.push(member.name);
    spare--;
  }
  return wake;
}
