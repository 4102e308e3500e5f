import fs from 'node:fs';
import { TeamdError } from '../errors.js';
import { writeFileAtomicSync } from '../fs/atomic-write.js';
import type { FileLocker } from '../fs/file-lock.js';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { readTextIfExists } from '../fs/read-text.js';
import type { StatePaths } from '../paths.js';
import { cronProblem, firstUnusableJob } from './cron-job.js';
import { MAX_CRON_JOBS, scheduleFileSchema, type CronJob, type ScheduleFile } from '../contracts/cron-job.js';

/** cron.json is small; one past this is refused rather than parsed. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The schedule in `<state>/cron.json`: read by anyone, changed only under its lock and written
 * whole (temp + rename). The CLI, the teammates' tools and the daemon's scheduler all go through it.
 */
export class ScheduleStore {
  private cached: { key: string; schedule: ScheduleFile } | null = null;
  /** What croner made of each expression seen: a schedule of 100 jobs is not parsed 100 times per look. */
  private readonly problems = new Map<string, string | null>();

  constructor(
    private readonly paths: StatePaths,
    private readonly locker: FileLocker,
  ) {}

  get file(): string {
    return this.paths.cronFile;
  }

  /** The schedule as it is on disk; a missing file is an empty schedule. Throws CONFIG_CORRUPT naming the file and the fault. */
  read(): ScheduleFile {
    // Looked at on every wake of the scheduler: parsed again only when the file changed.
    const stat = statOrNull(this.paths.cronFile);
    const key = stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : 'absent';
    if (this.cached?.key === key) return structuredClone(this.cached.schedule);
    const schedule = this.parse();
    this.cached = { key, schedule: structuredClone(schedule) };
    return schedule;
  }

  private parse(): ScheduleFile {
    const raw = readTextIfExists(this.paths.cronFile);
    if (raw === null) return scheduleFileSchema.parse({});
    if (raw.length > MAX_FILE_BYTES) throw this.corrupt(`it is over ${MAX_FILE_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw this.corrupt(`not valid JSON (${(error as Error).message})`);
    }
    const parsed = scheduleFileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw this.corrupt(`${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`);
    }
    const unusable = firstUnusableJob(parsed.data, (cron, tz) => this.problemOf(cron, tz));
    if (unusable) throw this.corrupt(unusable);
    return parsed.data;
  }

  /** Adds a job, giving it the next id. */
  async add(job: Omit<CronJob, 'id' | 'lastFiredFor'>): Promise<CronJob> {
    return this.update((schedule) => {
      if (schedule.jobs.length >= MAX_CRON_JOBS)
        throw new TeamdError('USAGE', `the schedule holds ${MAX_CRON_JOBS} jobs already: remove some (teamd cron rm <id>)`);
      const added: CronJob = { ...job, id: `c${schedule.nextId}`, lastFiredFor: null };
      schedule.jobs.push(added);
      schedule.nextId += 1;
      return added;
    });
  }

  /** Removes a job; null when there is no such job. */
  async remove(id: string): Promise<CronJob | null> {
    return this.update((schedule) => {
      const at = schedule.jobs.findIndex((job) => job.id === id);
      if (at === -1) return null;
      return schedule.jobs.splice(at, 1)[0]!;
    });
  }

  /**
   * Reads, changes and writes the schedule under its lock. `change` mutates the schedule it is
   * given; `afterWrite` runs after the write, still under the lock (the scheduler delivers there).
   */
  async update<T>(change: (schedule: ScheduleFile) => T, afterWrite?: (result: T) => void | Promise<void>): Promise<T> {
    ensurePrivateDir(this.paths.root);
    return this.locker.withLock(this.paths.cronFile, async () => {
      const schedule = this.parse();
      const before = JSON.stringify(schedule);
      const result = change(schedule);
      if (JSON.stringify(schedule) !== before) writeFileAtomicSync(this.paths.cronFile, `${JSON.stringify(schedule, null, 2)}\n`);
      await afterWrite?.(result);
      return result;
    });
  }

  private problemOf(cron: string, tz?: string): string | null {
    const key = `${tz ?? ''} ${cron}`;
    if (!this.problems.has(key)) this.problems.set(key, cronProblem(cron, tz));
    return this.problems.get(key)!;
  }

  private corrupt(why: string): TeamdError {
    return new TeamdError('CONFIG_CORRUPT', `${this.paths.cronFile} is not a valid schedule (${why}); it was left untouched: fix it by hand or remove it`);
  }
}

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
