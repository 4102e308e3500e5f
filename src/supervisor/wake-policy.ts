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
  /** Their ids (as many as were read): a member is not woken for tasks it declined (Member.declined) alone. */
  readonly readyIds?: readonly number[];
  /** Members running and idle (or starting): they will claim ready tasks themselves. */
  readonly awakeAvailable: number;
}

/**
 * Which sleeping members to wake: everyone with mail or unfinished work of their own, then as
 * many others as there are ready tasks that the awake members cannot take, never one for tasks it
 * has declined alone (a task given back after ending its turn again and again would wake it at
 * every idle timeout, for ever).
 */
export function chooseWakeUps(input: WakeInput): string[] {
  const wake = input.asleep.filter((member) => input.withUnread.has(member.name) || input.withOpenTask.has(member.name)).map((member) => member.name);
  let spare = input.readyTasks - input.awakeAvailable - wake.length;
  for (const member of input.asleep) {
    if (spare <= 0) break;
    if (wake.includes(member.name)) continue;
    // Every ready task is one it gave back or refused: waking it would only see it sleep again.
    const declined = new Set(member.declined ?? []);
    if (input.readyIds && input.readyIds.length > 0 && input.readyIds.every((id) => declined.has(id))) continue;
    wake.push(member.name);
    spare--;
  }
  return wake;
}
