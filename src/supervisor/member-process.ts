import { fork, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { Logger } from '../log/logger.js';
import { workerMessageSchema, type DaemonMessage, type WorkerMessage } from '../contracts/ipc-protocol.js';

export interface ForkOptions {
  readonly script: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly onMessage: (message: WorkerMessage) => void;
  readonly onExit: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/**
 * Forks one teammate process with an IPC channel. Its stderr (an uncaught exception, say)
 * goes to the daemon log; every IPC message is parsed before it is believed.
 */
export function forkMember(options: ForkOptions): ChildProcess {
  const child = fork(options.script, [...options.args], {
    env: options.env,
    // No flags of Node's or V8's: any V8 flag here costs the start ~20 ms of compiling Node's own
    // modules from source. The teammate sets its V8 flags itself (src/platform/boot/teammate-v8.ts).
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  if (child.stderr) {
    readline.createInterface({ input: child.stderr }).on('line', (line) => options.logger.warn({ stderr: line }, 'teammate stderr'));
  }
  child.on('message', (raw: unknown) => {
    const parsed = workerMessageSchema.safeParse(raw);
    if (parsed.success) options.onMessage(parsed.data);
    else options.logger.warn({ raw }, 'ignored an invalid IPC message from a teammate');
  });
  let reported = false;
  const exited = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (reported) return;
    reported = true;
    options.onExit(code, signal);
  };
  child.once('exit', exited);
  child.on('error', (error) => {
    options.logger.error({ err: error }, 'teammate process error');
    // A fork that never started emits 'error' without 'exit'.
    if (child.pid === undefined) exited(1, null);
  });
  return child;
}

export function sendToMember(child: ChildProcess, message: DaemonMessage): void {
  // A teammate that just died still reads as connected until its channel's end is seen: the write
  // fails with EPIPE, which without a callback is emitted as the child's 'error'. Its exit follows.
  if (child.connected) child.send(message, undefined, undefined, ignoreSendError);
}

/** A failed send means the teammate is gone; its 'exit' is reported by forkMember. */
function ignoreSendError(): void {}
