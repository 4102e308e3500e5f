import net from 'node:net';
import { TeamdError, type ErrorCode } from '../errors.js';
import type { StatePaths } from '../paths.js';
import { controlResponseSchema, type ControlRequest } from '../contracts/control-protocol.js';
import { notAnsweringHint } from './not-answering.js';
import { readLiveDaemon } from '../proc/pid-file.js';
import { isStopped } from '../proc/process-identity.js';

/** How often a command waiting for the daemon looks whether its process is stopped. */
const STOPPED_CHECK_MS = 250;

const KNOWN_CODES = new Set<string>([
  'USAGE',
  'INVALID_INPUT',
  'INVALID_NAME',
  'UNKNOWN_MEMBER',
  'UNKNOWN_RECIPIENT',
  'ALREADY_RUNNING',
  'DAEMON_RUNNING',
  'IO',
  'PROTOCOL',
  'CONFIG_CORRUPT',
]);

/** Sends one request to the daemon of a state folder and returns its result, or throws its error. */
export async function requestDaemon(paths: StatePaths, request: ControlRequest, timeoutMs = 30_000): Promise<unknown> {
  const line = await new Promise<string>((resolve, reject) => {
    const socket = net.createConnection(paths.daemonSocket);
    let buffer = '';
    const giveUp = (waited: string): void => {
      clearTimeout(timer);
      clearInterval(watch);
      socket.destroy();
      reject(
        new TeamdError('PROTOCOL', `the daemon did not answer "${request.op}" ${waited}: ${notAnsweringHint(paths)}`, { details: { notAnswering: true } }),
      );
    };
    const timer = setTimeout(() => giveUp(`within ${formatWait(timeoutMs)}`), timeoutMs);
    // A stopped daemon (SIGSTOP, Ctrl-Z, a debugger) will not answer however long this waits: said at once.
    const watch = setInterval(() => {
      const daemon = readLiveDaemon(paths);
      if (daemon && isStopped(daemon.pid)) giveUp('(it is stopped)');
    }, STOPPED_CHECK_MS);
    watch.unref();
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => (buffer += chunk));
    socket.on('end', () => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve(buffer.trim());
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      clearInterval(watch);
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') {
        reject(
          new TeamdError('DAEMON_NOT_RUNNING', `no teamd daemon is running for ${paths.root}: start it with: teamd start --dir ${paths.root}`, {
            cause: error,
          }),
        );
      } else reject(new TeamdError('IO', `cannot reach the daemon at ${paths.daemonSocket}: ${error.message}`, { cause: error }));
    });
  });
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    throw new TeamdError('PROTOCOL', `the daemon answered something that is not JSON: ${line.slice(0, 200)}`, { cause: error });
  }
  const response = controlResponseSchema.safeParse(json);
  if (!response.success) throw new TeamdError('PROTOCOL', `unexpected answer from the daemon: ${line.slice(0, 200)}`);
  if (response.data.ok) return response.data.result;
  const code = KNOWN_CODES.has(response.data.error.code) ? (response.data.error.code as ErrorCode) : 'IO';
  throw new TeamdError(code, response.data.error.message);
}

function formatWait(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
