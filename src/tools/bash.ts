import { spawn } from 'node:child_process';
import * as z from 'zod';
import { defineTool } from './tool.js';

/** Output kept in memory (the end of it); past MAX_RESULT_CHARS the whole is kept aside for read_file. */
const MAX_OUTPUT = 4 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;
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
    'Run a shell command in the workspace (bash -c). Returns the exit code and the combined output (a large output: its head and tail, and a reference to read all of it).',
  input: z.object({
    command: z
      .string()
      .min(1)
      .max(64 * 1024),
    timeout_ms: z.number().int().positive().max(600_000).optional(),
  }),
  needsApprovedPlan: true,
  run: (input, ctx) =>
    new Promise((resolve) => {
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
      const finish = (content: string, isError: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        resolve({ content, isError });
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
              ? 'killed: the teammate is shutting down'
              : signal
                ? `killed by ${signal}`
                : `exit code ${code}`;
        finish(`${status}\n${shown}`, code !== 0 || ended !== null || signal !== null);
      };
    }),
});

/** Kills what is left of a finished command's process group (background jobs it did not wait for). */
function killStragglers(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is empty
  }
}
