import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const TEAMD_BIN = path.join(REPO_ROOT, 'bin/teamd');
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures');

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the real CLI (built dist/ behind bin/teamd) as a child process. */
export function runTeamd(
  args: readonly string[],
  options: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    input?: string;
    uid?: number;
    gid?: number;
    /** A command the CLI runs under (`ip netns exec <ns>`: a daemon in a network namespace). */
    wrap?: readonly string[];
  } = {},
): Promise<RunResult> {
  const command = options.wrap && options.wrap.length > 0 ? [...options.wrap, process.execPath] : [process.execPath];
  const file = command[0] ?? process.execPath;
  const prefix = command.slice(1);
  return new Promise((resolve) => {
    const child = execFile(
      file,
      [...prefix, TEAMD_BIN, ...args],
      {
        cwd: options.cwd ?? REPO_ROOT,
        env: withoutTeamdDir(options.env),
        maxBuffer: 64 * 1024 * 1024,
        ...(options.uid === undefined ? {} : { uid: options.uid }),
        ...(options.gid === undefined ? {} : { gid: options.gid }),
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // A command may stop reading its input early (it refuses input past its limit): not an error here.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
  });
}

function withoutTeamdDir(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!('TEAMD_DIR' in extra)) delete env.TEAMD_DIR;
  return env;
}

const children = new Set<ChildProcess>();

/** Starts a fixture script; it is killed after the test if still running. */
export function startFixture(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, [path.join(FIXTURES, name), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Resolves with the first stdout line matching, or rejects if the process exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((candidate) => pattern.test(candidate));
      if (line !== undefined) {
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
        resolve(line);
      }
    };
    const onExit = (code: number | null): void => reject(new Error(`process exited (${code}) before printing ${pattern}; stdout: ${buffer}`));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

export function collectOutput(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

/** Pids of live (non-zombie) processes whose environment contains `needle` (e.g. a teammate's command marker). */
export function processesWithEnv(needle: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      if (fs.readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Pids of live (non-zombie) processes whose command line contains `needle`. */
export function processesRunning(needle: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
