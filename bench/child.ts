import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * A benchmark child process speaking a tiny protocol: it prints "ready" once loaded, waits for
 * "go" on stdin, and prints one JSON report as its last line. Start-up is never timed.
 */
export interface BenchChild<T> {
  readonly ready: Promise<void>;
  readonly report: Promise<T>;
  go(): void;
  kill(): void;
}

export function startBenchChild<T>(script: string, args: readonly string[]): BenchChild<T> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith('ready\n')) markReady();
  });
  const report = new Promise<T>((resolve, reject) => {
    child.once('close', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve(JSON.parse(last) as T);
      else reject(new Error(`${script} exited with code ${code}`));
    });
  });
  return { ready, report, go: () => child.stdin.end('go\n'), kill: () => child.kill('SIGKILL') };
}

/** In a child: announce readiness and wait for the start signal. */
export async function awaitGo(): Promise<void> {
  process.stdout.write('ready\n');
  process.stdin.setEncoding('utf8');
  await once(process.stdin, 'data');
}

/** Wall-clock epoch milliseconds with sub-millisecond precision, comparable across processes. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}
