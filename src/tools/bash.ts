import { spawn } from 'node:child_process';
import * as z from 'zod';
import { outputFile } from '../jobs/job-record.js';
import { statePaths } from '../paths.js';
import { defineTool, toolError, type ToolContext, type ToolResult } from '../contracts/tool.js';

/** Output kept in memory (the end of it); past MAX_RESULT_CHARS the whole is kept aside for read_file. */
const MAX_OUTPUT = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;
/** The longest a command may hold the teammate; longer ones go to the background. */
const MAX_FOREGROUND_MS = 600_000;
/** After the command's process exits, how long its output pipes may stay open (held by a detached child) before they are cut. */
const DRAIN_GRACE_MS = 500;

/**
 * Runs `bash -c` in the workspace through the teammate's shell launcher (a bubblewrap sandbox
 * where there is one), in its own process group so a timeout or a shutdown kills all of it.
 * The result comes when the command's process exits: a detached child that keeps the output
 * pipe open cannot hold the teammate past the timeout.
 */
export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command in the workspace (bash -c). Returns the exit code and the combined output (a large output: its head and tail, and a reference to read all of it). ' +
    'For a slow command (a build, a long test run, a server), set run_in_background: it returns at once with a job id, you go on working, and you are told when it ends; read its output with job_output, end it with job_kill.',
  input: z.object({
    command: z
      .string()
      .min(1)
      .max(64 * 1024),
    timeout_ms: z.number().int().positive().max(86_400_000).optional(),
    run_in_background: z.boolean().optional(),
  }),
  needsApprovedPlan: true,
  run: (input, ctx) => (input.run_in_background === true ? Promise.resolve(startInBackground(input, ctx)) : runInForeground(input, ctx)),
});

function startInBackground(input: { command: string; timeout_ms?: number | undefined }, ctx: ToolContext): ToolResult {
  if (!ctx.jobs) return toolError('background commands are not available here: run it without run_in_background');
  let job: ReturnType<NonNullable<ToolContext['jobs']>['start']>;
  try {
    job = ctx.jobs.start(input.command, ctx.workspace, input.timeout_ms);
  } catch (error) {
    return toolError(`could not start the background job: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    content:
      `started background job ${job.id} (pid ${job.pid ?? '?'}, time limit ${Math.round(job.timeoutMs / 1000)} s); its output goes to ${outputFile(statePaths(ctx.stateDir).jobDir(ctx.name), job.id)}. ` +
      `Go on with other work: you will be told when it ends. Read its output with job_output {"id": "${job.id}"}, end it with job_kill.`,
  };
}

function runInForeground(input: { command: string; timeout_ms?: number | undefined }, ctx: ToolContext): Promise<ToolResult> {
  if ((input.timeout_ms ?? 0) > MAX_FOREGROUND_MS)
    return Promise.resolve(toolError(`timeout_ms is at most ${MAX_FOREGROUND_MS} for a command you wait for: set run_in_background for a longer one`));
  return new Promise((resolve) => {
    const launch = ctx.shell.launch(input.command, ctx.workspace);
    const child = spawn(launch.file, [...launch.args], { cwd: ctx.workspace, env: launch.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.length > 2 * MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let ended: 'timeout' | 'shutdown' | null = null;
    const killGroup = (why: 'timeout' | 'shutdown'): void => {
      ended ??= why;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => killGroup('timeout'), input.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    const onAbort = (): void => killGroup('shutdown');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let settled = false;
    const finish = (content: string, isError: boolean, interrupted = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      resolve({ content, isError, ...(interrupted ? { interrupted: true } : {}) });
    };
    child.on('error', (error) => finish(`could not run bash: ${error.message}`, true));
    child.on('exit', (code, signal) => {
      // The group may still hold children that keep the pipes open: end them, then stop waiting for the pipes.
      if (ended === null && !launch.confined) killStragglers(child.pid);
      const drain = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        report(code, signal);
      }, DRAIN_GRACE_MS);
      child.once('close', () => {
        clearTimeout(drain);
        report(code, signal);
      });
    });
    const report = (code: number | null, signal: NodeJS.Signals | null): void => {
      const shown = output.length > MAX_OUTPUT ? `…(earlier output cut)\n${output.slice(-MAX_OUTPUT)}` : output;
      const status =
        ended === 'timeout'
          ? 'timed out and was killed'
          : ended === 'shutdown'
            ? `killed: ${typeof ctx.signal.reason === 'string' ? ctx.signal.reason : 'the teammate is shutting down'}`
            : signal
              ? `killed by ${signal}`
              : `exit code ${code}`;
      finish(`${status}\n${shown}`, code !== 0 || ended !== null || signal !== null, ended === 'shutdown');
    };
  });
}

/** Kills what is left of a finished command's process group (background jobs it did not wait for). */
function killStragglers(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is empty
  }
}
