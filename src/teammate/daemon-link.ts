import { daemonMessageSchema, type DaemonMessage, type WorkerMessage } from '../contracts/ipc-protocol.js';

/** The worker's side of the IPC channel to the daemon; absent when run by hand. */
export interface DaemonLink {
  send(message: WorkerMessage): void;
  onMessage(handler: (message: DaemonMessage) => void): void;
  /** The daemon died or closed the channel: the worker must exit (no orphans). */
  onDisconnect(handler: () => void): void;
}

export function processDaemonLink(proc: NodeJS.Process): DaemonLink {
  return {
    send: (message) => {
      // A channel the daemon just closed (or a daemon killed -9) still reads as connected until
      // 'disconnect' is delivered: the write fails with EPIPE, which without a callback would be
      // thrown from the process as an unhandled 'error'. The disconnect handler ends us anyway.
      if (proc.connected && proc.send) proc.send(message, undefined, undefined, ignoreSendError);
    },
    onMessage: (handler) => {
      proc.on('message', (raw: unknown) => {
        const parsed = daemonMessageSchema.safeParse(raw);
        if (parsed.success) handler(parsed.data);
      });
    },
    onDisconnect: (handler) => {
      // A daemon that closed the channel (or died) before this worker loaded sends no
      // 'disconnect' event at all: the channel already reads closed. Without this check such a
      // worker would run on unsupervised, an orphan.
      if (!proc.connected) setImmediate(handler);
      else proc.once('disconnect', handler);
    },
  };
}

/** A failed send means the channel is gone; 'disconnect' follows and ends the worker. */
function ignoreSendError(): void {}
