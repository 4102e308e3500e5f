import { fork, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import type { Logger } from '../logger.js';
import { workerMessageSchema, type DaemonMessage, type WorkerMessage } from './ipc-protocol.js';

export interface ForkOptions {
  readonly script: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly onMessage: (message: WorkerMessage) => void;
  readonly onExit: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/**
 * V8 flags of every teammate: a bounded heap (an old space far above what a compacted
 * conversation needs, so a leak ends in a restart, not in the machine swapping), a small young
 * generation, which keeps an idle teammate's resident memory near a bare Node process's, V8's
 * size-over-speed mode, neither the optimizing compiler nor the baseline one (a teammate waits
 * on the model and the disk, not on its own CPU; TurboFan's code and zones cost it ~3.5 MiB,
 * Sparkplug's machine code ~1.8 MiB after 400 tasks), bytecode dropped by the second full
 * collection that finds its function unused since the one before (V8's default waits five: a
 * teammate's idle-time collection, heap-trim.ts, then drops start-up code and what the code cache
 * brought but nothing ran), every full collection compacting (the idle one then gives back
 * fragmented pages), and V8's gc, with which it gives memory back when it goes idle
 * (teammate/heap-trim.ts). Measured in docs/architecture.md, "Scale".
 */
export const TEAMMATE_NODE_FLAGS = [
  '--max-old-space-size=256',
  '--max-semi-space-size=1',
  '--optimize-for-size',
  '--no-opt',
  '--no-sparkplug',
  '--bytecode-old-age=1',
  '--compact-on-every-full-gc',
  '--expose-gc',
];

/**
 * Forks one teammate process with an IPC channel. Its stderr (an uncaught exception, say)
 * goes to the daemon log; every IPC message is parsed before it is believed.
 */
export function forkMember(options: ForkOptions): ChildProcess {
  const child = fork(options.script, [...options.args], {
    env: options.env,
    execArgv: TEAMMATE_NODE_FLAGS,
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
