import { TeamdError } from '../errors.js';
import { LEAD, LEAD_ROLE, type Member, type MemberStatus } from '../contracts/roster.js';
import type { Bell } from '../contracts/team-store.js';
import type { DaemonMessage, WorkerMessage } from '../contracts/ipc-protocol.js';
import { cleanUpAfterTeam } from './clean-up.js';
import { checkModelFor, writeBudget } from './member-settings.js';
import { workerEnvFor } from './worker-env.js';
import { MemberWork, takesNoWork } from './member-work.js';
import { forkMember, sendToMember } from './member-process.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-policy.js';
import { MemberExits } from './member-exits.js';
import { newSlot, type MemberSlot } from './member-slot.js';
import { DEFAULT_LADDER, settlesWithin, stopChild, type LadderTimings, type StopRung } from './stop-ladder.js';
import { WakeScheduler } from './wake-scheduler.js';
import { WorkHandout } from './work-handout.js';
import { reconcileWorktrees } from '../worktree/reconcile.js';
import { spawnedMember, type SpawnSpec, type SupervisorDeps } from './supervisor-deps.js';
import { isoTime } from '../platform/iso-time.js';

export type { SpawnSpec, SupervisorDeps } from './supervisor-deps.js';

const RUNNING: readonly MemberStatus[] = ['starting', 'working', 'waiting-plan', 'waiting-permission', 'idle', 'stopping', 'crashed'];

/**
 * Owns the teammate processes of one state folder: forks them, restarts crashes with backoff,
 * wakes sleepers when work appears, stops them with the ladder, and keeps the roster true.
 * It is not in the data path: teammates talk only through the board and the inboxes.
 */
export class Supervisor {
  private readonly slots = new Map<string, MemberSlot>();
  private readonly policy: RestartPolicy;
  private readonly ladder: LadderTimings;
  private readonly now: () => number;
  private bell: Bell | null = null;
  private stopping = false;
  private readonly wakes = new WakeScheduler(
    () => {
      if (!this.stopping) void this.handout.look();
    },
    () => this.stopping,
  );
  private readonly handout: WorkHandout;

  private readonly work: MemberWork;
  private readonly exits: MemberExits;

  constructor(private readonly deps: SupervisorDeps) {
    this.work = new MemberWork(deps);
    this.policy = deps.restartPolicy ?? DEFAULT_RESTART_POLICY;
    this.ladder = deps.ladder ?? DEFAULT_LADDER;
    this.now = deps.now ?? Date.now;
    this.exits = new MemberExits({
      paths: deps.paths,
      logger: deps.logger,
      roster: deps.roster,
      mailbox: deps.mailbox,
      work: this.work,
      policy: this.policy,
      now: this.now,
      stopping: () => this.stopping,
      lookAgain: () => this.wakes.schedule(),
      relaunch: (name) => this.launch(name),
    });
    this.handout = new WorkHandout({
      roster: deps.roster,
      board: deps.board,
      work: this.work,
      logger: deps.logger,
      hasProcess: (name) => Boolean(this.slots.get(name)?.child || this.slots.get(name)?.restartTimer),
      launch: (name) => this.launch(name),
      ring: (name, task) => this.tell(name, { type: 'wake', task }),
      markLooked: deps.markLooked,
      afterLook: deps.afterLook,
      now: this.now,
      isTurn: deps.directory?.isTurn.bind(deps.directory),
      lookIn: (ms) => setTimeout(() => this.wakes.schedule(), ms).unref(),
    });
  }

  /** Reconciles the roster with reality (no teammate runs yet) and starts watching for work. */
  async start(): Promise<void> {
    await this.deps.board.reconcile();
    reconcileWorktrees(this.deps.paths, this.deps.logger);
    const members = this.deps.roster.read().members;
    const openTasks = await this.work.openTasksOf(members.map((m) => m.name));
    for (const member of members) {
      if (takesNoWork(member.status)) {
        await this.work.releaseTasksOf(member.name, `${member.name} is ${member.status}`);
        this.deps.roster.patchMember(member.name, { pid: null, task: null });
      } else if (RUNNING.includes(member.status) || openTasks.has(member.name)) {
        this.deps.logger.info({ teammate: member.name, was: member.status }, 'resuming teammate after daemon start');
        this.launch(member.name);
      } else {
        this.deps.roster.patchMember(member.name, { status: 'asleep', pid: null });
      }
    }
    this.bell = await this.deps.openDoorbell();
    void this.wakes.follow(this.bell);
    // Work that arrived while no daemon ran is handed out now, not at the bell's first safety re-scan.
    this.wakes.schedule();
  }

  /** Passes something on to a running teammate (`null`: to every one); one without a process is not told. */
  tell(name: string | null, message: DaemonMessage): void {
    for (const [member, slot] of this.slots) if ((name === null || member === name) && slot.child) sendToMember(slot.child, message);
  }

  async spawn(spec: SpawnSpec): Promise<Member> {
    if (this.stopping) throw new TeamdError('DAEMON_NOT_RUNNING', 'the daemon is stopping');
    const model = spec.model ?? this.deps.defaultModel();
    await checkModelFor(this.deps, model);
    const housekeeping = this.deps.housekeepingModel?.(spec.role, model) ?? model;
    if (housekeeping !== model)
      await checkModelFor(this.deps, housekeeping).catch((error: unknown) => {
        if (!(error instanceof TeamdError)) throw error;
        throw new TeamdError(error.code, `the housekeeping model (settings housekeepingModel or housekeepingModelByRole): ${error.message}`, { cause: error });
      });
    // After the check (it waits on the network): nothing below awaits until the slot is taken.
    if (this.stopping) throw new TeamdError('DAEMON_NOT_RUNNING', 'the daemon is stopping');
    const elsewhere = await this.deps.directory?.hostOf(spec.name);
    if (elsewhere && elsewhere !== this.deps.directory?.host) {
      throw new TeamdError('ALREADY_RUNNING', `${spec.name} is a member on the host ${elsewhere}: pick another name, or shut it down there first`);
    }
    if (this.stopping) throw new TeamdError('DAEMON_NOT_RUNNING', 'the daemon is stopping');
    const slot = this.slots.get(spec.name);
    if (slot?.child || slot?.restartTimer) {
      throw new TeamdError(
        'ALREADY_RUNNING',
        `${spec.name} is already running (pid ${slot.child?.pid ?? 'restarting'}); shut it down first: teamd shutdown ${spec.name}`,
      );
    }
    this.deps.roster.upsertMember(spec.name, spawnedMember(spec), { mustPersist: true });
    await this.deps.mailbox
      .openInbox(spec.name)
      .catch((error: unknown) => this.deps.logger.warn({ err: error, teammate: spec.name }, 'could not make the inbox file'));
    this.slots.set(spec.name, newSlot());
    this.launch(spec.name);
    // Reachable from every host before the spawn is answered: a message sent right after it is not refused.
    await this.deps.directory?.published();
    return this.deps.roster.requireMember(spec.name);
  }

  /** The lead agent (teamd run, teamd lead): the member `lead`, started unless it runs already (then it is left as it is). */
  async startLead(spec: Omit<SpawnSpec, 'name' | 'role' | 'plan'>): Promise<{ member: Member; started: boolean }> {
    const slot = this.slots.get(LEAD);
    if (slot?.child || slot?.restartTimer) return { member: this.deps.roster.requireMember(LEAD), started: false };
    return { member: await this.spawn({ ...spec, name: LEAD, role: LEAD_ROLE }), started: true };
  }

  /** Asks a teammate to shut down through its inbox; no answer in time (or --force) climbs the ladder. */
  async shutdown(name: string, force: boolean): Promise<{ rung: StopRung | 'answered' | 'not-running' }> {
    this.deps.roster.requireMember(name);
    const slot = this.slots.get(name);
    if (!slot?.child) {
      if (slot?.restartTimer) clearTimeout(slot.restartTimer);
      if (slot) slot.restartTimer = null;
      await this.work.releaseTasksOf(name, `${name} was shut down`);
      this.deps.roster.patchMember(name, { status: 'shutdown', pid: null });
      return { rung: 'not-running' };
    }
    slot.expected = 'shutdown';
    this.deps.roster.patchMember(name, { status: 'stopping' });
    const child = slot.child;
    if (!force) {
      await this.deps.mailbox.send({ from: LEAD, to: name, type: 'shutdown_request', content: 'The lead asks you to finish your current step and shut down.' });
      if (await settlesWithin(slot.exited, this.deps.shutdownAnswerMs ?? this.ladder.ipcGraceMs)) {
        return { rung: 'answered' };
      }
    }
    const rung = await stopChild(child, () => sendToMember(child, { type: 'shutdown', reason: 'shutdown requested by the lead' }), this.ladder);
    await slot.exited;
    return { rung };
  }

  /** Stops every teammate (ladder, in parallel) and stops watching. Members resume on the next start. */
  async stopAll(): Promise<Record<string, StopRung>> {
    this.stopping = true;
    await this.bell?.close();
    const rungs: Record<string, StopRung> = {};
    await Promise.all(
      [...this.slots].map(async ([name, slot]) => {
        if (slot.restartTimer) clearTimeout(slot.restartTimer);
        slot.restartTimer = null;
        const child = slot.child;
        if (!child) return;
        slot.expected = 'asleep';
        rungs[name] = await stopChild(child, () => sendToMember(child, { type: 'shutdown', reason: 'the daemon is stopping' }), this.ladder);
        await slot.exited;
      }),
    );
    cleanUpAfterTeam(this.deps.paths, this.deps.logger);
    return rungs;
  }

  /**
   * Sets a teammate's token budget (or the team's, with name null) and wakes whoever stopped
   * for a budget: each checks again and either works or stops once more, without a new notice.
   */
  setBudget(name: string | null, tokens: number): Member[] {
    for (const stopped of writeBudget(this.deps.roster, name, tokens)) {
      if (this.slots.get(stopped)?.child) continue;
      this.deps.roster.patchMember(stopped, { problem: null });
      this.launch(stopped);
    }
    return this.deps.roster.read().members;
  }

  /** Pids of running teammate processes, for status and tests. */
  runningPids(): Record<string, number> {
    return Object.fromEntries([...this.slots].flatMap(([name, slot]) => (slot.child?.pid ? [[name, slot.child.pid] as const] : [])));
  }

  private launch(name: string): void {
    const slot = this.slots.get(name) ?? newSlot();
    this.slots.set(name, slot);
    const logger = this.deps.logger.child({ teammate: name });
    let markExited: () => void = () => {};
    slot.exited = new Promise((resolve) => (markExited = resolve));
    slot.expected = null;
    slot.startedAt = this.now();
    const child = forkMember({
      script: this.deps.workerScript,
      args: ['--dir', this.deps.paths.root, '--name', name],
      env: workerEnvFor(this.deps.workerEnv, this.deps.roster.member(name)?.model ?? this.deps.defaultModel(), this.deps.paths.root),
      logger,
      onMessage: (message) => this.onMessage(name, slot, message),
      onExit: (code, signal) => {
        void this.onExit(name, slot, code, signal, child.pid).finally(markExited);
      },
    });
    slot.child = child;
    this.deps.roster.patchMember(name, { status: 'starting', pid: child.pid ?? null, startedAt: isoTime(slot.startedAt) });
    logger.info({ teammatePid: child.pid }, 'teammate started');
  }

  private onMessage(name: string, slot: MemberSlot, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        this.deps.roster.patchMember(name, { status: 'idle' });
        this.deps.logger.info({ teammate: name, readyMs: this.now() - slot.startedAt }, 'teammate ready');
        break;
      case 'status':
        // Waiting for a plan's answer, it holds its task: not free for a bell.
        this.handout.reported(name, message.status === 'idle' ? 'idle' : 'working');
        this.deps.roster.patchMember(name, {
          status: message.status,
          task: message.task,
          problem: message.problem ?? null,
          retryAt: message.retryAt ?? null,
          ...(message.wakes === undefined ? {} : { wakes: message.wakes }),
        });
        if (message.status === 'idle') this.wakes.schedule();
        break;
      case 'asleep':
        slot.expected = 'asleep';
        break;
      case 'shutting-down':
        slot.expected = 'shutdown';
        break;
      case 'errored':
      case 'budget':
        slot.expected = message.type;
        slot.problem = message.reason;
        break;
      case 'usage':
        this.deps.roster.patchMember(name, { usage: message.usage });
        break;
      case 'declined': {
        const before = this.deps.roster.member(name)?.declined ?? [];
        this.deps.roster.patchMember(name, { declined: [...before.filter((id) => id !== message.task), message.task].slice(-100) });
        break;
      }
      case 'network': {
        const before = this.deps.roster.member(name)?.netRefused ?? 0;
        this.deps.roster.patchMember(name, { netRefused: before + message.refused });
        this.deps.logger.warn({ teammate: name, refused: message.refused }, 'network: the proxy refused requests of its commands (its log names each)');
        break;
      }
    }
  }

  private async onExit(name: string, slot: MemberSlot, code: number | null, signal: NodeJS.Signals | null, pid: number | undefined): Promise<void> {
    slot.child = null;
    this.handout.gone(name);
    await this.exits.handle(name, slot, code, signal, pid);
  }
}
