import type { TaskBoard } from '../contracts/task-board.js';
import type { MailStore } from '../contracts/mail-store.js';
import type { Logger } from '../log/logger.js';
import type { Member } from '../contracts/roster.js';
import type { StatePaths } from '../paths.js';
import type { RosterStore } from '../roster/roster-store.js';
import type { Bell } from '../contracts/team-store.js';
import type { RestartPolicy } from './restart-policy.js';
import type { LadderTimings } from './stop-ladder.js';

export interface SpawnSpec {
  readonly name: string;
  readonly role: string;
  readonly prompt?: string | undefined;
  readonly model?: string | undefined;
  readonly plan?: boolean | undefined;
  readonly budgetTokens?: number | undefined;
}

/** A spawned member's roster fields: starting afresh (no restarts, exit or problem carried over). */
export function spawnedMember(spec: SpawnSpec): Partial<Member> & Pick<Member, 'role' | 'status'> {
  return {
    role: spec.role,
    status: 'starting',
    ...(spec.prompt === undefined ? {} : { prompt: spec.prompt }),
    ...(spec.model === undefined ? {} : { model: spec.model }),
    ...(spec.plan === undefined ? {} : { plan: spec.plan }),
    ...(spec.budgetTokens === undefined ? {} : { budgetTokens: spec.budgetTokens }),
    restarts: 0,
    lastExit: null,
    problem: null,
    retryAt: null,
  };
}

export interface SupervisorDeps {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly board: TaskBoard;
  readonly mailbox: MailStore;
  readonly roster: RosterStore;
  readonly openDoorbell: () => Promise<Bell>;
  /** Records that a look at the whole board began at this time (store/files/look-marker.ts): teammates then skip their own re-check scans. */
  readonly markLooked?: (startedAt: number) => void;
  /** Runs after each look for work (the daemon brings its scan of plan requests up to date: inbox/request-scan.ts). */
  readonly afterLook?: () => Promise<void>;
  /** A shared store's roster of every host (none with the file store: config.json is the whole roster). */
  readonly directory?: {
    /** Resolves once this host's latest roster is in the store (a spawned teammate can then be written to from any host). */
    published(): Promise<void>;
    /** The host whose daemon runs a member, if any does. */
    hostOf(name: string): Promise<string | null>;
    readonly host: string;
    /** Whether a ready task is this host's turn to ring for at once (ring-turns.ts). */
    isTurn(id: number): boolean;
  };
  readonly workerScript: string;
  readonly workerEnv: NodeJS.ProcessEnv;
  /** The team's model, for members spawned without one. */
  readonly defaultModel: () => string;
  /** The model a teammate of this role on this model uses for housekeeping (the settings' housekeepingModel): checked at spawn like its own. */
  readonly housekeepingModel?: (role: string, own: string) => string;
  /** Refuses a model id the API does not serve (or a key it refuses) before anything is spawned. */
  readonly checkModel?: (model: string) => Promise<void>;
  readonly restartPolicy?: RestartPolicy;
  readonly ladder?: LadderTimings;
  /** How long `shutdown` waits for a teammate to answer its shutdown_request before the ladder. */
  readonly shutdownAnswerMs?: number;
  readonly now?: () => number;
}
