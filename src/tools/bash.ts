import { spawn } from 'node:child_process';
import { z } from 'zod';
import { SPAWNED_BY_ENV, spawnMarker } from '../supervisor/leftovers.js';
import { defineTool } from './tool.js';

const MAX_OUTPUT = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;

/** Runs `bash -c` in the workspace, in its own process group so a timeout or shutdown kills all of it. */
export const bashTool = defineTool({
  name: 'bash',
  description: 'Run a shell command in the workspace (bash -c). Returns the exit code and the combined output (the last 64 KiB).',
  input: z.object({
    command: z.string().min(1).max(64 * 1024),
    timeout_ms: z.number().int().positive().max(600_000).optional(),
  }),
  mutating: true,
  run: (input, ctx) =>
    new Promise((resolve) => {
      const env = { ...process.env, [SPAWNED_BY_ENV]: spawnMarker(process.pid, ctx.stateDir) };
      const child = spawn('bash', ['-c', input.command], { cwd: ctx.workspace, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const collect = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        if (output.length > 2 * MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      let ended: 'timeout' | 'shutdown' | null = null;
      const killGroup = (why: 'timeout' | 'shutdown'): void => {
        ended = why;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => killGroup('timeout'), input.timeout_ms ?? DEFAULT_TIMEOUT_MS);
      const onAbort = (): void => killGroup('shutdown');
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => {
        clearTimeout(timer);
        resolve({ content: `could not run bash: ${error.message}`, isError: true });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
        const shown = output.length > MAX_OUTPUT ? `…(earlier output cut)\n${output.slice(-MAX_OUTPUT)}` : output;
        const status = ended === 'timeout' ? 'timed out and was killed' : ended === 'shutdown' ? 'killed: the teammate is shutting down' : signal ? `killed by ${signal}` : `exit code ${code}`;
        resolve({ content: `${status}\n${shown}`, isError: code !== 0 || ended !== null || signal !== null });
      });
    }),
});
