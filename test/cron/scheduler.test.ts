import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cronProblem, dueRuns } from '../../src/cron/cron-job.js';
import { type CronJob } from '../../src/contracts/cron-job.js';
import { ScheduleStore } from '../../src/cron/schedule-store.js';
import { Scheduler, type Firing } from '../../src/cron/scheduler.js';
import { FileLocker } from '../../src/fs/file-lock.js';
import { createLogger } from '../../src/log/logger.js';
import { statePaths } from '../../src/paths.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const logger = createLogger({ level: 'silent' });
const open: Scheduler[] = [];
afterEach(async () => {
  for (const scheduler of open.splice(0)) await scheduler.close();
});

/** A schedule in a real folder, and schedulers over it driven by a clock the test moves (no waiting on real time). */
function setup(jobs: Partial<CronJob>[]) {
  const paths = statePaths(path.join(makeTempDir('teamd-cron-'), '.team'));
  fs.mkdirSync(paths.root, { recursive: true });
  fs.writeFileSync(
    paths.cronFile,
    JSON.stringify({
      nextId: jobs.length + 1,
      jobs: jobs.map((job, i) => ({ id: `c${i + 1}`, to: 'lead', message: `job ${i + 1}`, createdBy: 'lead', createdAt: '2026-01-01T00:00:00Z', ...job })),
    }),
  );
  let now = new Date('2026-01-01T00:00:00Z');
  const fired: Firing[] = [];
  const scheduler = (): Scheduler => {
    const made = new Scheduler({
      store: new ScheduleStore(paths, new FileLocker({ logger })),
      deliver: async (firing) => void fired.push(firing),
      logger,
      now: () => now,
    });
    open.push(made);
    return made;
  };
  return {
    paths,
    fired,
    scheduler,
    at: (iso: string) => void (now = new Date(iso)),
    file: () => JSON.parse(fs.readFileSync(paths.cronFile, 'utf8')) as { jobs: CronJob[] },
  };
}

const fires = (fired: readonly Firing[]) => fired.flatMap((f) => (f.kind === 'fire' ? [f.scheduledFor.toISOString()] : []));

describe('the scheduler (real schedule file and locks, a clock moved by the test)', () => {
  it('fires a per-minute job once per minute over three minutes, however often it looks, and two schedulers racing fire it once', async () => {
    const { fired, scheduler, at } = setup([{ cron: '* * * * *', tz: 'UTC' }]);
    const one = scheduler();
    const two = scheduler();
    for (const minute of ['00:00:30', '00:01:00', '00:01:00.500', '00:02:00.010', '00:02:40', '00:03:00.002', '00:03:01']) {
      at(`2026-01-01T${minute}Z`);
      await Promise.all([one.look(), two.look(), one.look()]);
    }
    expect(fires(fired)).toEqual(['2026-01-01T00:01:00.000Z', '2026-01-01T00:02:00.000Z', '2026-01-01T00:03:00.000Z']);
    expect(fired.filter((f) => f.kind === 'missed')).toEqual([]);
  });

  it('a one-shot fires once and leaves the schedule', async () => {
    const { fired, scheduler, at, file } = setup([{ at: '2026-01-01T00:00:02Z' }]);
    const s = scheduler();
    at('2026-01-01T00:00:01Z');
    await s.look();
    expect(fired).toEqual([]);
    at('2026-01-01T00:00:02.004Z');
    await s.look();
    await s.look();
    expect(fires(fired)).toEqual(['2026-01-01T00:00:02.000Z']);
    expect(file().jobs).toEqual([]);
  });

  it('runs missed while no daemon ran are reported once, not replayed; with catchUp, run once; one on time still fires', async () => {
    const { fired, scheduler, at, file } = setup([
      { cron: '0 * * * *', tz: 'UTC' },
      { cron: '0 * * * *', tz: 'UTC', catchUp: true },
      { cron: '*/10 * * * *', tz: 'UTC' },
      { at: '2026-01-01T01:00:00Z' },
    ]);
    at('2026-01-01T05:30:00Z');
    await scheduler().look();
    expect(fired.map((f) => [f.job.id, f.kind, f.kind === 'fire' ? f.catchingUp?.count : f.count])).toEqual([
      ['c1', 'missed', 5],
      ['c2', 'fire', 5],
      ['c3', 'missed', 32],
      ['c3', 'fire', undefined],
      ['c4', 'missed', 1],
    ]);
    expect(file().jobs.map((j) => [j.id, j.lastFiredFor])).toEqual([
      ['c1', '2026-01-01T05:00:00.000Z'],
      ['c2', '2026-01-01T05:00:00.000Z'],
      ['c3', '2026-01-01T05:30:00.000Z'],
    ]);
    // A later start (a new scheduler over the same file) reports nothing again.
    fired.length = 0;
    at('2026-01-01T05:30:30Z');
    await scheduler().look();
    expect(fired).toEqual([]);
  });

  it('daylight saving neither skips nor doubles a daily run (America/New_York, autumn and spring)', async () => {
    const autumn = setup([{ cron: '30 1 * * *', tz: 'America/New_York', createdAt: '2026-10-31T00:00:00Z' }]);
    const s = autumn.scheduler();
    for (let t = Date.parse('2026-10-31T00:00:00Z'); t <= Date.parse('2026-11-03T00:00:00Z'); t += 15 * 60_000) {
      autumn.at(new Date(t).toISOString());
      await s.look();
    }
    // 1:30 on Oct 31 (EDT), Nov 1 (once, though 1:30 comes twice), Nov 2 (EST).
    expect(fires(autumn.fired)).toEqual(['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);

    const spring = setup([{ cron: '30 2 * * *', tz: 'America/New_York', createdAt: '2026-03-07T00:00:00Z' }]);
    const t2 = spring.scheduler();
    for (let t = Date.parse('2026-03-07T00:00:00Z'); t <= Date.parse('2026-03-10T00:00:00Z'); t += 15 * 60_000) {
      spring.at(new Date(t).toISOString());
      await t2.look();
    }
    // 2:30 does not exist on March 8: that day's run is at 3:00, once.
    expect(fires(spring.fired)).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
  });

  it('a damaged schedule is refused with the file and the fault, and the scheduler keeps running', async () => {
    const { paths, fired, scheduler, at } = setup([]);
    fs.writeFileSync(paths.cronFile, '{"jobs": [{"id": "c1", "cron": "61 * * * *"}]}');
    const store = new ScheduleStore(paths, new FileLocker({ logger }));
    expect(() => store.read()).toThrow(`${paths.cronFile} is not a valid schedule`);
    const s = scheduler();
    await s.look();
    expect(fired).toEqual([]);
    // Fixed by hand: the next look fires.
    fs.writeFileSync(
      paths.cronFile,
      JSON.stringify({ jobs: [{ id: 'c1', at: '2026-01-01T00:00:01Z', to: 'lead', message: 'm', createdBy: 'lead', createdAt: '2026-01-01T00:00:00Z' }] }),
    );
    at('2026-01-01T00:00:01.010Z');
    await s.look();
    expect(fires(fired)).toEqual(['2026-01-01T00:00:01.000Z']);
  });

  it('names what is wrong with an expression or a time zone', () => {
    expect(cronProblem('61 * * * *')).toBe('invalid cron expression "61 * * * *": Invalid value for minute: 61');
    expect(cronProblem('* * * * *', 'Mars/Base')).toContain('unknown time zone "Mars/Base"');
    expect(cronProblem('*/5 * * * * *')).toBeNull();
    const job = {
      id: 'c1',
      cron: '* * * * * *',
      to: 'lead',
      message: 'm',
      createdBy: 'lead',
      createdAt: '2026-01-01T00:00:00Z',
      lastFiredFor: null,
      task: false,
      catchUp: false,
    };
    // A per-second job over a year of downtime is bounded, and says there were more.
    expect(dueRuns(job, new Date('2027-01-01T00:00:00Z'))).toMatchObject({ more: true });
  });
});
