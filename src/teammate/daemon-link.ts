import { daemonMessageSchema, type DaemonMessage, type WorkerMessage } from '../supervisor/ipc-protocol.js';

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
      if (proc.connected && proc.send) proc.send(message);
    },
    onMessage: (handler) => {
      proc.on('message', (raw: unknown) => {
        const parsed = daemonMessageSchema.safeParse(raw);
        if (parsed.success) handler(parsed.data);
      });
    },
    onDisconnect: (handler) => {
      proc.once('disconnect', handler);
    },
  };
}
