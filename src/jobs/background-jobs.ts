import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { TeamdError } from '../errors.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readSliceAndClose } from '../fs/read-text.js';
import type { Logger } from '../log/logger.js';
import { isSameProcessAlive, processStartTime } from '../proc/process-identity.js';
import type { ShellLauncher } from '../contracts/tool.js';
import { jobNumber, outputFile, outputTail, pruneFinishedJobs, readJobRecords, writeJobRecord } from './job-record.js';
import { type JobRecord } from '../contracts/job-record.js';
import { isoTime } from '../platform/iso-time.js';
import { openRegular } from '../fs/open-regular.js';

export interface JobLimits {
  /** A job still running after this long is killed (its group) and reported timed out. */
  readonly timeoutMs: number;
  /** Output past this many bytes is dropped, and the record says it was cut. */
  readonly outputCapBytes: number;
  /** Finished jobs kept (records and output) per teammate; older ones are removed as new ones start. */
  readonly keep: number;
  /** Jobs one teammate may have running at once. */
  readonly maxRunning: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = { timeoutMs: 30 * 60_000, outputCapBytes: 10 * 1024 * 1024, keep: 50, maxRunning: 8 };

/** How long a finished job's pipes may stay open (held by a grandchild it left behind) before they are cut. */
const DRAIN_GRACE_MS = 500;
const NOTICE_TAIL_BYTES = 2_000;

interface Live {
  readonly child: ChildProcess;
  readonly timer: NodeJS.Timeout;
  readonly fd: number;
  record: JobRecord;
  written: number;
  ended: 'timed-out' | 'killed' | 'lost' | null;
  why: string | null;
}

/** A job that ended and the tail of its output: what the teammate's conversation is told. */
export interface JobNotice {
  readonly record: JobRecord;
  readonly tail: string;
}

export interface BackgroundJobsDeps {
  readonly name: string;
  /** `jobs/<name>/` in the state folder. */
  readonly dir: string;
  readonly shell: ShellLauncher;
  readonly limits: JobLimits;
  /** A job ended: the teammate wakes (if idle) to hear about it. */
  readonly onEnded: () => void;
  readonly logger: Logger;
}

/**
 * A teammate's background commands. Each runs like `bash` (the same launcher, sandbox and
 * environment) in its own process group, with its output written to a file under the state
 * folder; its record is kept beside it. A job ends by itself, by `job_kill`, by its time limit, or
 * with its teammate: `stopAll` kills every group, and a teammate that died is cleaned up after by
 * the daemon (the launcher's marker), its jobs found `running` at the next start and reported lost.
 */
export class BackgroundJobs {
  private readonly live = new Map<string, Live>();
  /** Ended jobs whose end the conversation has not heard: kept in memory, so asking (every step) reads no file while there are none. */
  private readonly unnotified = new Set<string>();
  private nextNumber: number;

  constructor(private readonly deps: BackgroundJobsDeps) {
    const { records } = readJobRecords(deps.dir);
    this.nextNumber = records.reduce((max, record) => Math.max(max, jobNumber(record.id)), 0) + 1;
    for (const record of records) if (record.state !== 'running' && !record.notified) this.unnotified.add(record.id);
  }

  /**
   * At start: jobs a previous run of this teammate left `running` died with it (or are killed
   * now, if somehow alive): each is marked lost, to be told to the conversation. Returns how many.
   */
  recover(): number {
    let lost = 0;
    for (const record of readJobRecords(this.deps.dir).records) {
      if (record.state !== 'running') continue;
      if (record.pid !== null && isSameProcessAlive({ pid: record.pid, start: record.pidStart })) killGroup(record.pid);
      writeJobRecord(this.deps.dir, {
        ...record,
        state: 'lost',
        endedAt: isoTime(),
        note: 'its teammate stopped or died while it ran',
        notified: false,
      });
      this.unnotified.add(record.id);
      lost++;
    }
    if (lost > 0) this.deps.logger.warn({ lost }, 'background jobs of an earlier run were lost');
    return lost;
  }

  running(): number {
    return this.live.size;
  }

  start(command: string, workdir: string, timeoutMs?: number): JobRecord {
    const { limits, name, dir, logger } = this.deps;
    if (this.live.size >= limits.maxRunning)
      throw new TeamdError(
        'USAGE',
        `${this.live.size} background jobs are running already (the most is ${limits.maxRunning}): wait for one, or end one with job_kill`,
      );
    ensurePrivateDir(dir);
    pruneFinishedJobs(dir, limits.keep);
    const id = `${name}-${this.nextNumber++}`;
    const limit = Math.min(timeoutMs ?? limits.timeoutMs, limits.timeoutMs);
    const fd = fs.openSync(outputFile(dir, id), 'a', 0o600);
    const launch = this.deps.shell.launch(command, workdir);
    let child: ChildProcess;
    try {
      child = spawn(launch.file, [...launch.args], { cwd: workdir, env: launch.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
    const record: JobRecord = {
      id,
      teammate: name,
      command,
      workdir,
      pid: child.pid ?? null,
      pidStart: child.pid ? processStartTime(child.pid) : null,
      state: 'running',
      startedAt: isoTime(),
      endedAt: null,
      exitCode: null,
      signal: null,
      timeoutMs: limit,
      outputCapBytes: limits.outputCapBytes,
      outputCut: false,
      note: null,
      notified: false,
    };
    const job: Live = {
      child,
      fd,
      record,
      written: 0,
      ended: null,
      why: null,
      timer: setTimeout(() => this.end(job, 'timed-out', `it ran past its time limit of ${limit} ms`), limit),
    };
    this.live.set(id, job);
    writeJobRecord(dir, record);
    const collect = (chunk: Buffer): void => this.write(job, chunk);
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('error', (error) => {
      job.why = `it could not run: ${error.message}`;
      this.finish(job, null, null);
    });
    child.once('exit', (code, signal) => {
      if (job.ended === null && !launch.confined) killGroup(child.pid);
      const cut = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        this.finish(job, code, signal);
      }, DRAIN_GRACE_MS);
      child.once('close', () => {
        clearTimeout(cut);
        this.finish(job, code, signal);
      });
    });
    logger.info({ jobId: id, pid: child.pid, command: command.slice(0, 200) }, 'background job started');
    return record;
  }

  /** Ends a running job of this teammate (its whole group). Null: no such job running. */
  kill(id: string): JobRecord | null {
    const job = this.live.get(id);
    if (!job) return null;
    this.end(job, 'killed', 'ended by job_kill');
    return job.record;
  }

  /** The teammate stops: every job's group is killed, and each is recorded lost, to be told at the next start. */
  stopAll(why: string): void {
    for (const job of [...this.live.values()]) {
      this.end(job, 'lost', why);
      // The process may not be reaped before this one exits: the record is final now.
      this.finish(job, null, 'SIGKILL');
    }
  }

  /** Up to `max` bytes of a job's output from `offset`, and where it stands. Null: no job of this teammate has that id. */
  output(id: string, offset: number, max: number): { record: JobRecord; text: string; size: number; next: number } | null {
    const record = this.record(id);
    if (!record) return null;
    let fd: number;
    try {
      fd = openRegular(outputFile(this.deps.dir, id), 'read');
    } catch {
      return { record, text: '', size: 0, next: offset };
    }
    const { text, size, length } = readSliceAndClose(fd, offset, max);
    return { record, text, size, next: offset + length };
  }

  /** The record of one of this teammate's jobs (live or on disk). */
  record(id: string): JobRecord | null {
    const live = this.live.get(id);
    if (live) return live.record;
    return readJobRecords(this.deps.dir).records.find((r) => r.id === id) ?? null;
  }

  /** Jobs that ended and whose end the conversation has not heard yet, oldest first. */
  notices(): JobNotice[] {
    if (this.unnotified.size === 0) return [];
    return readJobRecords(this.deps.dir)
      .records.filter((r) => this.unnotified.has(r.id) && r.state !== 'running' && !r.notified)
      .map((record) => ({ record, tail: outputTail(this.deps.dir, record.id, NOTICE_TAIL_BYTES) }));
  }

  /** The conversation holds these notices (saved): they are not told again. */
  markNotified(ids: readonly string[]): void {
    const records = readJobRecords(this.deps.dir).records;
    for (const id of ids) {
      this.unnotified.delete(id);
      const record = records.find((r) => r.id === id);
      if (record && !record.notified) writeJobRecord(this.deps.dir, { ...record, notified: true });
    }
  }

  private write(job: Live, chunk: Buffer): void {
    // Ended (its file closed, the number maybe reused by another file): what is left is dropped.
    if (!this.live.has(job.record.id)) return;
    const room = job.record.outputCapBytes - job.written;
    if (room <= 0) {
      if (!job.record.outputCut) job.record = { ...job.record, outputCut: true };
      return; // keep draining the pipe, so the command is never blocked on it
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    try {
      fs.writeSync(job.fd, part);
      job.written += part.length;
    } catch (error) {
      // A full disk: the command goes on; its output is cut where the disk filled.
      job.written = job.record.outputCapBytes;
      job.record = { ...job.record, outputCut: true, note: `its output could not be written: ${(error as Error).message}` };
    }
    if (part.length < chunk.length) job.record = { ...job.record, outputCut: true };
  }

  private end(job: Live, how: 'timed-out' | 'killed' | 'lost', why: string): void {
    if (job.ended !== null) return;
    job.ended = how;
    job.why = why;
    killGroup(job.child.pid);
  }

  private finish(job: Live, code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.live.has(job.record.id)) return;
    this.live.delete(job.record.id);
    clearTimeout(job.timer);
    fs.closeSync(job.fd);
    const state = job.ended ?? (job.why !== null ? 'lost' : 'exited');
    job.record = { ...job.record, state, endedAt: isoTime(), exitCode: code, signal, note: job.record.note ?? job.why };
    this.unnotified.add(job.record.id);
    try {
      writeJobRecord(this.deps.dir, job.record);
    } catch (error) {
      this.deps.logger.error({ err: error, jobId: job.record.id }, 'could not record the end of a background job');
    }
    this.deps.logger.info({ jobId: job.record.id, state, exitCode: code, signal }, 'background job ended');
    this.deps.onEnded();
  }
}

/** Kills a job's whole process group; an empty group is fine. */
function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
