import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { TEAMD_BIN } from './processes.js';
import { beforeThisTestsFoldersGo } from './temp-dir.js';

export interface RunningUi {
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  readonly child: ChildProcess;
}

/** `teamd ui --json` on a free port; it is stopped before the test's folders go, whatever happened. */
export async function startUi(dir: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RunningUi> {
  const child = spawn(process.execPath, [TEAMD_BIN, 'ui', '--json', '--dir', dir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  beforeThisTestsFoldersGo(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await gone;
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const printed = await new Promise<{ url: string; port: number }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const end = stdout.lastIndexOf('}');
      if (end > 0)
        try {
          resolve(JSON.parse(stdout.slice(0, end + 1)) as { url: string; port: number });
        } catch {
          // not whole yet
        }
    });
    child.once('close', (code) => reject(new Error(`teamd ui exited (${code}) before printing its address: ${stderr}`)));
  });
  const url = new URL(printed.url);
  return { url: printed.url, origin: url.origin, port: printed.port, token: url.searchParams.get('token')!, child };
}

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One HTTP request with exactly the headers given (fetch would add and forbid some, Host and Origin among them). */
export function request(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
