import type { Task } from '../contracts/task.js';
import type { Message } from '../contracts/message.js';
import type { Member } from '../contracts/roster.js';

/**
 * A whole team's shared state, store-neutral: what `teamd store copy` moves. Cursors are counts
 * of messages consumed (a byte offset in a file and a sequence number in PostgreSQL are
 * translated through them).
 */
export interface TeamDump {
  readonly tasks: readonly Task[];
  /** The next task id: ids are never reused, so this may be past the highest task. */
  readonly nextTaskId: number;
  readonly inboxes: readonly { readonly name: string; readonly messages: readonly Message[] }[];
  readonly cursors: readonly { readonly consumer: string; readonly inbox: string; readonly consumed: number; readonly lastId: string | null }[];
  readonly members: readonly Member[];
  readonly protocolKey: string | null;
}

/** The counts copy verifies in the target after loading. */
export interface DumpCounts {
  readonly tasks: number;
  readonly messages: number;
  readonly inboxes: number;
  readonly cursors: number;
  readonly members: number;
}

export function countsOf(dump: TeamDump): DumpCounts {
  return {
    tasks: dump.tasks.length,
    messages: dump.inboxes.reduce((sum, inbox) => sum + inbox.messages.length, 0),
    inboxes: dump.inboxes.filter((inbox) => inbox.messages.length > 0).length,
    cursors: dump.cursors.length,
    members: dump.members.length,
  };
}

/** The inbox a consumer reads: `lead.agent` (the lead agent's own cursor) reads lead's. */
export function inboxOfConsumer(consumer: string): string {
  return consumer.endsWith('.agent') ? consumer.slice(0, -'.agent'.length) : consumer;
}

/** Where a team's state can be read whole and written whole (daemons stopped). */
export interface DumpableStore {
  readonly describe: string;
  dump(): Promise<TeamDump>;
  /** True when the store holds no task, message or member of this team. */
  isEmpty(): Promise<boolean>;
  load(dump: TeamDump): Promise<void>;
  /** What runs on this store now (a daemon, a heartbeating host): a copy is made with everything stopped. */
  running(): Promise<string[]>;
}
