import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BackgroundJobs, DEFAULT_JOB_LIMITS, type JobLimits } from '../../src/jobs/background-jobs.js';
import { readJobRecords, writeJobRecord } from '../../src/jobs/job-record.js';
import { listJobs } from '../../src/jobs/job-listing.js';
import { createLogger } from '../../src/log/logger.js';
import { isAlive } from '../../src/proc/process-identity.js';
import { statePaths } from '../../src/paths.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { createShellLauncher } from '../../src/sandbox/shell-launcher.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/contracts/tool.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { processesRunning } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait.js';

function setup(limits: Partial<JobLimits> = {}) {
  const workspace = makeTempDir('teamd-ws-');
  const paths = statePaths(path.join(workspace, '.team'));
  const ended: string[] = [];
  const shell = createShellLauncher({
    kind: detectSandbox(),
    mode: 'preferred',
    layout: { workspace, hidden: [paths.root] },
    baseEnv: process.env,
    envPolicy: { passNames: [], secretNames: [] },
    marker: { name: 'TEAMD_SPAWNED_BY', value: `jobs-test-${process.pid}` },
  });
  const make = (): BackgroundJobs =>
    new BackgroundJobs({
      name: 'alice',
      dir: paths.jobDir('alice'),
      shell,
      limits: { ...DEFAULT_JOB_LIMITS, ...limits },
      onEnded: () => ended.push('ended'),
      logger: createLogger({ level: 'silent' }),
    });
  return { workspace, paths, ended, make, jobs: make() };
}

const record = (jobs: BackgroundJobs, id: string) => jobs.record(id)!;
const finished = (jobs: BackgroundJobs, id: string) => waitFor(() => record(jobs, id).state !== 'running' && record(jobs, id), `${id} to end`);

describe('background jobs (real processes)', () => {
  it('runs a command in the background: its output goes to a file, and its end is recorded and waits to be told once', async () => {
    const { jobs, workspace, ended } = setup();
    fs.writeFileSync(path.join(workspace, 'in.txt'), 'from the workspace\n');
    const job = jobs.start('cat in.txt; echo to-stderr >&2; exit 3', workspace);
    expect(job).toMatchObject({ id: 'alice-1', state: 'running', notified: false });
    expect(jobs.running()).toBe(1);
    const done = await finished(jobs, 'alice-1');
    expect(done).toMatchObject({ state: 'exited', exitCode: 3, signal: null });
    expect(ended).toEqual(['ended']);
    expect(jobs.running()).toBe(0);
    expect(jobs.output('alice-1', 0, 1000)!.text).toBe('from the workspace\nto-stderr\n');
    const notices = jobs.notices();
    expect(notices.map((n) => [n.record.id, n.tail])).toEqual([['alice-1', 'from the workspace\nto-stderr\n']]);
    jobs.markNotified(['alice-1']);
    expect(jobs.notices()).toEqual([]);
    // Ids go on after a restart: a new runner over the same folder does not reuse alice-1.
    expect(jobs.start('true', workspace).id).toBe('alice-2');
    // Its end is written into the test's folder: waited for, so the folder's removal does not race it.
    await finished(jobs, 'alice-2');
  });

  it('pages output by offset, and cuts it at the cap without blocking the command', async () => {
    const { jobs, workspace } = setup({ outputCapBytes: 1024 });
    jobs.start('head -c 100000 /dev/zero | tr "\\0" x; echo; echo finished-anyway > done.txt', workspace);
    const done = await finished(jobs, 'alice-1');
    expect(done).toMatchObject({ state: 'exited', exitCode: 0, outputCut: true });
    expect(fs.readFileSync(path.join(workspace, 'done.txt'), 'utf8')).toBe('finished-anyway\n');
    const first = jobs.output('alice-1', 0, 600)!;
    expect(first).toMatchObject({ size: 1024, next: 600 });
    const second = jobs.output('alice-1', first.next, 600)!;
    expect(second.text).toHaveLength(424);
    expect(second.next).toBe(1024);
  });

  it('kills a job over its time limit, with everything it started', async () => {
    const { jobs, workspace } = setup({ timeoutMs: 2000 });
    // A unique duration finds the job's child among the host's processes (inside a sandbox, $! is another namespace's pid).
    const needle = `sleep 61.${process.pid}`;
    jobs.start(`${needle} & touch started; wait`, workspace);
    await waitFor(() => fs.existsSync(path.join(workspace, 'started')) && processesRunning(needle).length > 0, 'the job to start its child');
    const done = await finished(jobs, 'alice-1');
    expect(done.state).toBe('timed-out');
    expect(done.note).toContain('time limit of 2000 ms');
    await waitFor(() => processesRunning(needle).length === 0, "the job's child to be gone");
  });

  it('job_kill ends a running job; stopAll kills every job and records it lost; a later start reports what a dead run left running', async () => {
    const { jobs, workspace, make, paths } = setup();
    jobs.start('sleep 60', workspace);
    jobs.start('sleep 60', workspace);
    const pids = [record(jobs, 'alice-1').pid!, record(jobs, 'alice-2').pid!];
    expect(jobs.kill('alice-1')).not.toBeNull();
    expect(jobs.kill('nobody-1')).toBeNull();
    expect((await finished(jobs, 'alice-1')).state).toBe('killed');
    jobs.stopAll('its teammate stopped while it ran');
    expect(record(jobs, 'alice-2')).toMatchObject({ state: 'lost', note: 'its teammate stopped while it ran' });
    for (const pid of pids) await waitFor(() => !isAlive(pid), `job pid ${pid} gone`);

    // A teammate killed outright leaves its record saying running: its next run reports it lost.
    const crashed = readJobRecords(paths.jobDir('alice')).records.find((r) => r.id === 'alice-2')!;
    writeJobRecord(paths.jobDir('alice'), { ...crashed, id: 'alice-3', state: 'running', endedAt: null, note: null, notified: false });
    expect(listJobs(paths).jobs.find((j) => j.id === 'alice-3')!.shownState).toBe('lost');
    const next = make();
    expect(next.recover()).toBe(1);
    expect(next.notices().map((n) => [n.record.id, n.record.state])).toEqual([
      ['alice-1', 'killed'],
      ['alice-2', 'lost'],
      ['alice-3', 'lost'],
    ]);
  });

  it('refuses more jobs than the limit, and skips a damaged record instead of failing the listing', async () => {
    const { jobs, workspace, paths } = setup({ maxRunning: 1 });
    jobs.start('sleep 60', workspace);
    expect(() => jobs.start('true', workspace)).toThrow(/1 background jobs are running already/);
    fs.writeFileSync(path.join(paths.jobDir('alice'), 'alice-9.json'), '{"id": "alice-9"}');
    const listing = listJobs(paths);
    expect(listing.jobs.map((j) => j.id)).toEqual(['alice-1']);
    expect(listing.problems[0]!.problem).toContain('not a job record');
    jobs.stopAll('test over');
  });

  it('keeps the newest finished jobs whose end was told, and removes older records with their output', async () => {
    const { jobs, workspace, paths } = setup({ keep: 1 });
    for (const n of [1, 2]) {
      jobs.start(`echo run ${n}`, workspace);
      await finished(jobs, `alice-${n}`);
    }
    jobs.markNotified(['alice-1', 'alice-2']);
    jobs.start('echo run 3', workspace);
    await finished(jobs, 'alice-3');
    const left = fs.readdirSync(paths.jobDir('alice')).sort();
    expect(left).toEqual(['alice-2.json', 'alice-2.log', 'alice-3.json', 'alice-3.log']);
    // Not yet told: never removed, whatever the limit.
    jobs.start('echo run 4', workspace);
    await finished(jobs, 'alice-4');
    expect(
      fs
        .readdirSync(paths.jobDir('alice'))
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual(['alice-2.json', 'alice-3.json', 'alice-4.json']);
  });

  it('the tools: bash with run_in_background, job_output and job_kill, and their errors', async () => {
    const { jobs, workspace, paths } = setup();
    const ctx = { name: 'alice', workspace, stateDir: paths.root, signal: new AbortController().signal, jobs } as unknown as ToolContext;
    const shellCtx = { ...ctx, shell: (jobs as unknown as { deps: { shell: ToolContext['shell'] } }).deps.shell };
    const tools = new ToolRegistry();
    const started = await tools.run('bash', { command: 'echo hello; sleep 60', run_in_background: true }, shellCtx);
    expect(started.isError).toBeFalsy();
    expect(started.content).toContain('started background job alice-1');
    expect(started.content).toContain(`its output goes to ${path.join(paths.jobDir('alice'), 'alice-1.log')}`);
    await waitFor(() => jobs.output('alice-1', 0, 100)!.text === 'hello\n', 'output');
    expect((await tools.run('job_output', { id: 'alice-1' }, ctx)).content).toMatch(/^job alice-1: running since .*\nhello\n$/);
    expect(await tools.run('job_output', { id: 'alice-7' }, ctx)).toMatchObject({ isError: true, content: 'you have no job alice-7' });
    expect(await tools.run('job_output', { id: '../etc' }, ctx)).toMatchObject({ isError: true });
    expect((await tools.run('job_kill', { id: 'alice-1' }, ctx)).isError).toBeFalsy();
    expect((await finished(jobs, 'alice-1')).state).toBe('killed');
    expect(await tools.run('job_kill', { id: 'alice-1' }, ctx)).toMatchObject({ isError: true });
    expect(await tools.run('bash', { command: 'true', timeout_ms: 700_000 }, shellCtx)).toMatchObject({
      isError: true,
      content: expect.stringContaining('run_in_background'),
    });
    expect(await tools.run('bash', { command: 'true', run_in_background: true }, { ...shellCtx, jobs: undefined })).toMatchObject({ isError: true });
  });
});
