import { execFile } from 'node:child_process';

/** What the daemon tells the service manager that started it (a systemd unit of Type=notify). */
export interface ServiceNotifier {
  /** Start-up is over: the control socket answers and the teammates are up. */
  ready(status: string): void;
  /** Stopping has begun (the teammates' ladder comes next). */
  stopping(status: string): void;
  /** Resolves once every notice sent so far has been handed over (or given up on). */
  settled(): Promise<void>;
}

/** A notice that systemd-notify cannot hand over within this is given up on: the daemon never waits on its manager. */
const NOTIFY_TIMEOUT_MS = 5_000;

/**
 * systemd's readiness protocol (sd_notify) through systemd's own helper, `systemd-notify`:
 * Node has no way to send a datagram to a unix socket (dgram is UDP only) without a native
 * module. Measured with systemd 252 (Debian 12): the helper waits until the manager has read the
 * notice (its BARRIER=1), so the message is not lost when the helper exits first; `--pid` names
 * the daemon as the main process, since the notice comes from the helper, a child (the unit says
 * NotifyAccess=all). null when no manager listens (NOTIFY_SOCKET unset): then nothing is sent.
 * Notices go out one after another, in order; a failure is logged once and never throws.
 */
export function systemdNotifier(options: {
  readonly env: NodeJS.ProcessEnv;
  readonly pid: number;
  /** Told of the first notice that could not be sent (the daemon logs it). */
  readonly onFailure: (error: Error, socket: string) => void;
}): ServiceNotifier | null {
  const socket = options.env.NOTIFY_SOCKET;
  if (!socket) return null;
  let chain: Promise<void> = Promise.resolve();
  let warned = false;
  const send = (args: readonly string[]): void => {
    chain = chain.then(
      () =>
        new Promise<void>((resolve) => {
          execFile(
            'systemd-notify',
            [...args],
            { env: { PATH: options.env.PATH ?? '/usr/bin:/bin', NOTIFY_SOCKET: socket }, timeout: NOTIFY_TIMEOUT_MS },
            (error) => {
              if (error && !warned) {
                warned = true;
                options.onFailure(error, socket);
              }
              resolve();
            },
          );
        }),
    );
  };
  return {
    ready: (status) => send(['--ready', `--pid=${options.pid}`, `--status=${status}`]),
    stopping: (status) => send(['STOPPING=1', `STATUS=${status}`]),
    settled: () => chain,
  };
}
