import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TeamdError } from '../../errors.js';

/** A throwaway PostgreSQL server in a temp folder: the tests' and the bench's, never a user's. */
export interface LocalServer {
  /** postgres://… of its database `teamd` on 127.0.0.1. */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  stop(): Promise<void>;
}

const SEARCH = ['/usr/lib/postgresql'];

/** The folder holding initdb and postgres: on PATH, else Debian's /usr/lib/postgresql/<version>/bin (newest first). */
export function findServerBinaries(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'postgres'))) return dir;
  }
  for (const root of SEARCH) {
    let versions: string[] = [];
    try {
      versions = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a));
    } catch {
      continue;
    }
    for (const version of versions) {
      const bin = path.join(root, version, 'bin');
      if (fs.existsSync(path.join(bin, 'initdb'))) return bin;
    }
  }
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (which
 * Debian's package creates) through runuser.
 */
function asServerUser(command: string, args: readonly string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, [...args]];
  return ['runuser', ['-u', 'postgres', '--', command, ...args]];
}

/**
 * Starts a server in a new temp folder on a free port and waits until it accepts connections.
 * The server is started by a shell that waits on its stdin, a pipe from this process: when this
 * process ends, however it ends, the pipe closes and the shell stops the server (fast shutdown),
 * so no server outlives its test run.
 */
export async function startLocalServer(
  options: {
    readonly startTimeoutMs?: number;
    readonly durable?: boolean;
    /** Also listen on every address, trusting clients of this subnet (CIDR): the partition test's hosts in their network namespaces. */
    readonly network?: string;
  } = {},
): Promise<LocalServer> {
  const bin = findServerBinaries();
  if (!bin) {
    throw new TeamdError('USAGE', 'no PostgreSQL server found (initdb and postgres): install it (apt-get install -y postgresql) or put its bin folder on PATH');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-pg-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
  const [initCommand, initArgs] = asServerUser(path.join(bin, 'initdb'), ['-D', data, '-U', 'teamd', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new TeamdError('IO', `initdb failed: ${(init.stderr || init.stdout || String(init.error)).trim().split('\n').slice(-3).join(' ')}`);
  }
  if (options.network) fs.appendFileSync(path.join(data, 'pg_hba.conf'), `host all all ${options.network} trust\n`);
  const port = await freePort();
  const serverArgs = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    `listen_addresses=${options.network ? '*' : '127.0.0.1'}`,
    '-c',
    'max_connections=300',
    // Tests need no durability, and are faster without it; the bench measures a durable server.
    ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
  ];
  // $1 is the folder, removed once the server is down (also when this process was killed).
  const script = `dir=$1; shift; "$@" & pid=$!; cat >/dev/null; kill -INT $pid 2>/dev/null; wait $pid; rm -rf "$dir"`;
  const [command, args] = asServerUser('sh', ['-c', script, 'teamd-pg', dir, path.join(bin, 'postgres'), ...serverArgs]);
  const server = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  try {
    await waitForServer(port, server, () => stderr, options.startTimeoutMs ?? 30_000);
    await createDatabase(port);
  } catch (error) {
    server.stdin?.end();
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://teamd@127.0.0.1:${port}/teamd`,
    port,
    dir,
    stop: async () => {
      server.stdin?.end();
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForServer(port: number, server: ChildProcess, stderr: () => string, timeoutMs: number): Promise<void> {
  const { default: pg } = await import('pg');
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new TeamdError('IO', `postgres exited at start: ${stderr().trim().split('\n').slice(-3).join(' ')}`);
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'teamd', database: 'postgres' });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new TeamdError('IO', `postgres did not accept connections within ${timeoutMs} ms (try ${attempt + 1})`, { cause: error });
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createDatabase(port: number): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'teamd', database: 'postgres' });
  await client.connect();
  try {
    await client.query('CREATE DATABASE teamd');
  } finally {
    await client.end();
  }
}
