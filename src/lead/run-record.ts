import path from 'node:path';
import * as z from 'zod';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readTextIfExists } from '../fs/read-text.js';
import { readInboxFrom } from '../store/files/inbox-file.js';
import type { Message } from '../contracts/message.js';
import type { StatePaths } from '../paths.js';
import { USER } from '../contracts/roster.js';

export const runRecordSchema = z.object({
  /** The id of the goal's message to the lead. */
  goalId: z.string().min(1),
  goal: z.string(),
  startedAt: z.iso.datetime({ offset: true }),
  /** Where user.jsonl and lead.jsonl ended when the goal was sent: the run's messages come after. */
  userOffset: z.number().int().nonnegative(),
  leadOffset: z.number().int().nonnegative(),
});
export type RunRecord = z.infer<typeof runRecordSchema>;

export function writeRunRecord(paths: StatePaths, record: RunRecord): void {
  ensurePrivateDir(path.dirname(paths.runGoal));
  writeFileAtomicSync(paths.runGoal, `${JSON.stringify(record)}\n`);
}

/** The last run's record; null when there is none or it cannot be read (then no run is active). */
export function readRunRecord(paths: StatePaths): RunRecord | null {
  try {
    const raw = readTextIfExists(paths.runGoal);
    if (raw === null) return null;
    const parsed = runRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The lead's final report for a run, if it has sent one: the first final report in user.jsonl after the run began. */
export function finalReport(paths: StatePaths, record: RunRecord): Message | null {
  const read = readInboxFrom(paths.inboxFile(USER), record.userOffset);
  return read.messages.map((m) => m.message).find((message) => isFinalReportOf(message, record)) ?? null;
}

/** The run still going: its record exists and the lead has not reported on it. */
export function activeRun(paths: StatePaths): RunRecord | null {
  const record = readRunRecord(paths);
  return record && !finalReport(paths, record) ? record : null;
}

/** The lead's final report on this run's goal: one naming it, or one naming no goal (a lead may not say). */
export function isFinalReportOf(message: Message, record: RunRecord): boolean {
  return message.from === 'lead' && message.report === 'final' && (message.goal === undefined || message.goal === record.goalId);
}
