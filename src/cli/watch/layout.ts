/** How many rows each section of the watch screen gets, so the frame never has more lines than the screen. */
export interface SectionRows {
  readonly members: number;
  readonly tasks: number;
  readonly messages: number;
  /** Empty lines between sections, when there is room for them. */
  readonly gaps: boolean;
}

/**
 * Splits `height` lines: one header, one title per section, then the rows. Each section gets a
 * few rows first (tasks before members before messages when the screen is small), then what is
 * left goes to the team, the board and the messages in that order.
 */
export function sectionRows(height: number, want: { members: number; tasks: number; messages: number }): SectionRows {
  const fixed = 4;
  let left = Math.max(0, height - fixed);
  const take = (wanted: number, cap: number): number => {
    const got = Math.min(wanted, cap, left);
    left -= got;
    return got;
  };
  const tasks = take(Math.max(1, want.tasks), 3);
  const members = take(Math.max(1, want.members), 3);
  const messages = take(Math.max(1, want.messages), 2);
  // Then the team, whole if it fits: the board yields first (a big board hid all but two teammates).
  const moreMembers = take(Math.max(1, want.members) - members, Number.MAX_SAFE_INTEGER);
  const moreTasks = take(Math.max(1, want.tasks) - tasks, Number.MAX_SAFE_INTEGER);
  const moreMessages = take(Math.max(1, want.messages) - messages, 8);
  // Empty lines between sections only from what nothing else wanted.
  const gaps = left >= 3;
  return { members: members + moreMembers, tasks: tasks + moreTasks, messages: messages + moreMessages, gaps };
}
