import fs from 'node:fs';
import path from 'node:path';
import * as z from '../zod-mini.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readSliceAndClose, readTextIfExists } from '../fs/read-text.js';
import { isSameProcessAlive } from '../proc/process-identity.js';
import { openRegular } from '../fs/open-regular.js';

export const JOB_STATES = ['running', 'exited', 'killed', 'timed-out', 'lost'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** `<teammate>-<n>`: unique in the team, readable in `teamd jobs` and in a conversation. */
export const JOB_ID = /^[a-z][a-z0-9_-]{0,31}-[1-9][0-9]{0,8}$/;

/**
 * One background command, as `jobs/<teammate>/<id>.json` holds it. Only its teammate writes it
 * (whole, atomically); `notified` turns true once the teammate's conversation has heard how it
 * ended, so a notice survives a crash between the end and the next model call.
 */
export const jobRecordSchema = z.strictObject({
  id: z.string().check(z.regex(JOB_ID)),
  teammate: z.string().check(z.minLength(1), z.maxLength(32)),
  command: z.string().check(z.maxLength(64 * 1024)),
  workdir: z.string().check(z.maxLength(4096)),
  pid: z.nullable(z.number().check(z.int(), z.positive())),
  /** Start time of the process in clock ticks (/proc/<pid>/stat): a reused pid is not taken for it. */
  pidStart: z.nullable(z.number().check(z.int(), z.nonnegative())),
  state: z.enum(JOB_STATES),
  startedAt: z.iso.datetime({ offset: true }),
  endedAt: z.nullable(z.iso.datetime({ offset: true })),
  exitCode: z.nullable(z.number().check(z.int())),
  signal: z.nullable(z.string().check(z.maxLength(32))),
  timeoutMs: z.number().check(z.int(), z.positive()),
  /** Output past this many bytes is not written (the command still runs to its end). */
  outputCapBytes: z.number().check(z.int(), z.positive()),
  outputCut: z.boolean(),
  /** Why it was lost, killed or could not start, for the notice. */
  note: z.nullable(z.string().check(z.maxLength(1024))),
  notified: z.boolean(),
});
export type JobRecord = z.infer<typeof jobRecordSchema>;

export const recordFile = (dir: string, id: string): string => path.join(dir, `${id}.json`);
export const outputFile = (dir: string, id: string): string => path.join(dir, `${id}.log`);

export function writeJobRecord(dir: string, record: JobRecord): void {
  writeFileAtomicSync(recordFile(dir, record.id), `${JSON.stringify(record, null, 2)}\n`);
}

export interface JobListing {
  readonly records: JobRecord[];
  /** Files that are not valid records, with why: shown, never fatal. */
  readonly problems: { file: string; problem: string }[];
}

/** Every record in one teammate's job folder, oldest first (by id number). A missing folder is no jobs. */
export function readJobRecords(dir: string): JobListing {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  } catch {
    return { records: [], problems: [] };
  }
  const records: JobRecord[] = [];
  const problems: JobListing['problems'] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const problem = (why: string): void => void problems.push({ file, problem: why });
    let raw: string | null;
    try {
      raw = readTextIfExists(file);
    } catch (error) {
      problem((error as Error).message);
      continue;
    }
    if (raw === null) continue; // removed meanwhile (pruned)
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      problem(`not valid JSON (${(error as Error).message})`);
      continue;
    }
    const parsed = jobRecordSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problem(`not a job record (${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'})`);
      continue;
    }
    records.push(parsed.data);
  }
  records.sort((a, b) => jobNumber(a.id) - jobNumber(b.id));
  return { records, problems };
}

export function jobNumber(id: string): number {
  return Number(id.slice(id.lastIndexOf('-') + 1));
}

/** A record that says running whose process is gone (its teammate died with it): lost, as readers should show it. */
export function effectiveState(record: JobRecord): JobState {
  if (record.state !== 'running') return record.state;
  if (record.pid === null) return 'lost';
  return isSameProcessAlive({ pid: record.pid, start: record.pidStart }) ? 'running' : 'lost';
}

/** The last `max` bytes of a job's output ('…' first when there was more); empty when it has none. */
export function outputTail(dir: string, id: string, max: number): string {
  let fd: number;
  try {
    fd = openRegular(outputFile(dir, id), 'read');
  } catch {
    return '';
  }
  const size = fs.fstatSync(fd).size;
  const { text } = readSliceAndClose(fd, Math.max(0, size - max), max);
  return size > max ? `…${text}` : text;
}

/** Keeps the newest `keep` finished jobs whose end was told; older records and outputs are removed. */
export function pruneFinishedJobs(dir: string, keep: number): void {
  const finished = readJobRecords(dir).records.filter((r) => r.state !== 'running' && r.notified);
  for (const record of finished.slice(0, Math.max(0, finished.length - keep))) {
    fs.rmSync(recordFile(dir, record.id), { force: true });
    fs.rmSync(outputFile(dir, record.id), { force: true });
  }
}
