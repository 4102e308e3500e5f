import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import { readSliceAndClose, readTextIfExists } from '../fs/read-text.js';
import { isSameProcessAlive } from '../proc/process-identity.js';
import type { JobRecord, JobState } from '../contracts/job-record.js';
import { openRegular } from '../fs/open-regular.js';
import { jobRecordSchema } from '../contracts/job-record.js';

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
