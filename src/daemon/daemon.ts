import fs from 'node:fs';
import path from 'node:path';
import { OfflineModelServer } from '../model/offline/server.js';
import { checkModelId } from '../model/model-check.js';
import { OfflineScript } from '../model/offline/script.js';
import { OFFLINE_KEY_ENV, OFFLINE_URL_ENV } from '../contracts/offline-model.js';
import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { openStore } from '../store/open/open-store.js';
import { type TeamStore } from '../contracts/team-store.js';
import { MemberPublisher } from '../store/member-publisher.js';
import { HostLease } from './host-lease.js';
import { HostRequests } from './host-requests.js';
import { LEAD } from '../contracts/roster.js';
import { describeStore, storeSetting } from '../store/store-setting.js';
import type { Logger } from '../logger.js';
import type { StatePaths } from '../paths.js';
import { RosterStore } from '../roster/roster-store.js';
import type { RestartPolicy } from '../supervisor/restart-policy.js';
import { Scheduler } from '../cron/scheduler.js';
import { ScheduleStore } from '../cron/schedule-store.js';
import { scheduledDelivery } from '../cron/deliver.js';
import type { LadderTimings } from '../supervisor/stop-ladder.js';
import { Supervisor } from '../supervisor/supervisor.js';
import { inotifyWarning } from '../proc/inotify.js';
import { SANDBOX_ENV } from '../sandbox/sandbox.js';
import { checkSandbox } from './sandbox-check.js';
import { cleanUpAfterEarlierDaemon } from '../supervisor/clean-up.js';
import { RequestScanKeeper } from '../inbox/request-scan.js';
import { ControlServer } from './control-server.js';
import type { ControlRequest } from '../contracts/control-protocol.js';
import { acquirePidFile, releasePidFile, type PidInfo } from '../proc/pid-file.js';

export interface DaemonHealth {
  readonly rosterWriteFailing: string | null;
  readonly rosterWriteFailingSince: string | null;
  readonly logWriteFailing: string | null;
}

export interface DaemonOptions {
  readonly paths: StatePaths;
  readonly logger: Logger;
  readonly workerScript: string;
  readonly workerEnv: NodeJS.ProcessEnv;
  /** Team settings given to `teamd start`; unset ones keep what config.json has. */
  readonly settings?: {
    readonly model?: string | undefined;
    readonly idleTimeoutMs?: number | undefined;
    readonly store?: string | undefined;
    readonly team?: string | undefined;
    readonly host?: string | undefined;
  };
  readonly restartPolicy?: RestartPolicy;
  readonly ladder?: LadderTimings;
  /** Why the daemon's log file cannot be written right now, if it cannot. */
  readonly logWriteFailing?: () => string | null;
}

/** The supervisor daemon of one state folder: pid file, control socket, teammate processes. */
export class Daemon {
  readonly info: PidInfo;
  /** Resolves once the daemon has stopped everything it started. */
  readonly stopped: Promise<void>;
  private stopping: Promise<void> | null = null;
  private resolveStopped: () => void = () => {};
  private server: ControlServer | null = null;
  /** Answering other hosts' requests (a shared store), once the team is up. */
  private servingRequests: { requests: HostRequests; listening: { close(): Promise<void> } | null } | null = null;

  private constructor(
    private readonly options: DaemonOptions,
    private readonly supervisor: Supervisor,
    info: PidInfo,
    private readonly model: OfflineModelServer,
    private readonly roster: RosterStore,
    private readonly scheduler: Scheduler,
    private readonly store: TeamStore,
    private readonly lease: HostLease | null,
    private readonly publisher: MemberPublisher | null,
    private readonly storeWait: AbortController,
  ) {
    this.info = info;
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
  }

  static async start(options: DaemonOptions): Promise<Daemon> {
    const { paths, logger } = options;
    const locker = new FileLocker({ logger });
    const sandbox = checkSandbox(new RosterStore(paths).read().settings.sandbox, logger);
    const info = await acquirePidFile(paths, locker, logger, new Date(), sandbox);
    let supervisor: Supervisor | null = null;
    let model: OfflineModelServer | null = null;
    let scheduler: Scheduler | null = null;
    let store: TeamStore | null = null;
    let lease: HostLease | null = null;
    const storeWait = new AbortController();
    try {
      // A shared store gets this host's roster on every change (publisher below, once the store is open).
      let publisher: MemberPublisher | null = null;
      const roster = new RosterStore(paths, { logger, onChange: (config) => publisher?.changed(config.members) });
      model = await OfflineModelServer.listen({
        script: new OfflineScript(path.join(paths.root, 'offline-script.json'), (message) => logger.error(message)),
        logger: logger.child({ component: 'offline-model' }),
        contextWindowTokens: () => roster.read().settings.offlineContextTokens,
        // For tests: TEAMD_OFFLINE_RECORD names a file that gets one line per request (teammate, system prompt, tools).
        ...(options.workerEnv.TEAMD_OFFLINE_RECORD ? { onDecide: recordRequests(options.workerEnv.TEAMD_OFFLINE_RECORD) } : {}),
      });
      const { settings } = roster.update((config) => ({ ...config, settings: { ...config.settings, ...definedOnly(options.settings ?? {}) } }));
      store = await openStore(storeSetting(paths, settings, options.workerEnv), {
        paths,
        logger,
        migrate: true,
        // Looks, heartbeats and notices wait out a store outage; stopping ends the wait.
        patience: { maxWaitMs: 24 * 60 * 60_000, signal: storeWait.signal },
      });
      logger.info({ store: describeStore(store.setting) }, 'store open');
      const { board, mail: mailbox } = store;
      const shared = store.shared;
      if (shared) {
        publisher = new MemberPublisher((members) => store!.members.publish(shared.host, members), logger);
        publisher.changed(roster.read().members);
      }
      const published = publisher;
      const looks = store.boardLooks;
      const requestScan = new RequestScanKeeper(mailbox, paths, logger);
      const teamBell = store.bell.bind(store);
      supervisor = new Supervisor({
        paths,
        logger,
        board,
        mailbox,
        roster,
        // Every change of the team's board and inboxes. Where the store keeps a mark of the daemon's
        // looks, the bell's default look every 5 s keeps it fresh, so idle teammates' safety
        // re-checks skip their own scans of the board (board/look-marker.ts).
        openDoorbell: async () => teamBell({ team: true }, looks ? {} : { rescanMs: settings.recheckMs }),
        ...(looks ? { markLooked: (startedAt: number) => looks.mark(startedAt) } : {}),
        // The lead's inbox grows with the team's life; `teamd status` reads it only past this scan,
        // where the store cannot read requests by type itself.
        ...(mailbox.readsByType ? {} : { afterLook: async () => requestScan.soon() }),
        ...(shared && published
          ? {
              directory: {
                published: () => published.published(),
                hostOf: async (name: string) => (await store!.members.list()).find((entry) => entry.member.name === name)?.host ?? null,
                host: shared.host,
              },
            }
          : {}),
        workerScript: options.workerScript,
        workerEnv: { ...options.workerEnv, [OFFLINE_URL_ENV]: model.url, [OFFLINE_KEY_ENV]: model.key, [SANDBOX_ENV]: JSON.stringify(sandbox.kind) },
        defaultModel: () => roster.read().settings.model,
        checkModel: (id) => checkModelId(id, { apiKey: options.workerEnv.ANTHROPIC_API_KEY ?? '', baseURL: options.workerEnv.ANTHROPIC_BASE_URL, logger }),
        ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}),
        ladder: options.ladder ?? { ipcGraceMs: settings.ipcGraceMs, termGraceMs: settings.termGraceMs },
      });
      scheduler = new Scheduler({
        store: new ScheduleStore(paths, locker),
        deliver: scheduledDelivery({ mailbox, board, members: () => roster.read().members, logger }),
        logger: logger.child({ component: 'scheduler' }),
      });
      const hosts = store.hosts;
      lease =
        shared && hosts
          ? new HostLease({
              hosts,
              host: shared.host,
              pid: process.pid,
              leaseMs: () => roster.read().settings.hostLeaseMs,
              onReclaimed: async ({ host, members, released, stopped }) => {
                for (const name of members)
                  await mailbox
                    .send({
                      from: name,
                      to: LEAD,
                      type: 'teammate_crashed',
                      content: `${name} ${stopped ? `stopped with its host ${host}` : `is lost: its host ${host} stopped heartbeating`}.${released.length ? ` Task(s) ${released.join(', ')} went back to the board.` : ''}`,
                    })
                    .catch((error: unknown) => logger.warn({ err: error }, 'could not tell the lead about a lost host'));
              },
              logger,
            })
          : null;
      const daemon = new Daemon(options, supervisor, info, model, roster, scheduler, store, lease, publisher, storeWait);
      // Before any task is resumed: nothing an earlier daemon's teammates started may run alongside its second run.
      cleanUpAfterEarlierDaemon(paths, logger);
      const inotify = inotifyWarning(roster.read().members.length);
      if (inotify) logger.warn({ inotify }, 'the team may not fit the inotify limits');
      await supervisor.start();
      await lease?.start();
      // Other hosts' commands for this one (teamd spawn --host, teamd shutdown of a teammate here): woken by NOTIFY, and at each beat.
      if (shared && hosts) {
        const requests = new HostRequests(hosts, shared.host, supervisor, logger);
        const listening = await store.listen(
          (event) => event.kind === 'request' && event.host === shared.host,
          () => requests.serve(),
        );
        lease?.onBeat(() => requests.serve());
        requests.serve();
        daemon.servingRequests = { requests, listening };
      }
      // After the teammates are up: what came due while no daemon ran is delivered (or reported) now.
      await scheduler.start();
      daemon.server = await ControlServer.listen(paths.daemonSocket, (request) => daemon.handle(request), logger);
      logger.info({ dir: paths.root }, 'daemon ready');
      return daemon;
    } catch (error) {
      // Never leave a half-started daemon's teammates behind.
      await lease?.close();
      await scheduler?.close();
      await supervisor?.stopAll();
      await model?.close();
      await store?.close();
      releasePidFile(paths);
      throw error;
    }
  }

  async handle(request: ControlRequest): Promise<unknown> {
    switch (request.op) {
      case 'ping':
        return { ...this.info, health: this.health() };
      case 'spawn':
        return this.supervisor.spawn(request);
      case 'lead':
        return this.supervisor.startLead(request);
      case 'shutdown':
        return this.supervisor.shutdown(request.name, request.force);
      case 'budget':
        return this.supervisor.setBudget(request.name, request.tokens);
      case 'stop':
        // Answer first; the CLI then waits for this process to exit.
        setImmediate(() => void this.stop());
        return { stopping: true, pid: this.info.pid };
      default:
        throw new TeamdError('PROTOCOL', `unknown request ${JSON.stringify(request)}`);
    }
  }

  /** Stops every teammate (the ladder), then the control socket, then removes the pid file. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const { logger, paths } = this.options;
      logger.info('daemon stopping');
      this.storeWait.abort();
      await this.servingRequests?.listening?.close();
      await this.servingRequests?.requests.close();
      await this.scheduler.close();
      const rungs = await this.supervisor.stopAll();
      await this.server?.close();
      await this.model.close();
      // The roster as the team last sees it (every teammate stopped), then no more beats: after the lease, other hosts take this one's tasks.
      await this.publisher?.published();
      this.publisher?.close();
      await this.lease?.close(true);
      await this.store.close();
      this.roster.close();
      releasePidFile(paths);
      logger.info({ rungs }, 'daemon stopped');
      this.resolveStopped();
    })();
    return this.stopping;
  }

  /** Conditions the person must hear about: a roster the disk refuses, a log file it refuses. */
  health(): DaemonHealth {
    const roster = this.roster.health();
    return { rosterWriteFailing: roster.writeFailing, rosterWriteFailingSince: roster.since, logWriteFailing: this.options.logWriteFailing?.() ?? null };
  }

  runningPids(): Record<string, number> {
    return this.supervisor.runningPids();
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Appends what the offline model saw to a file, one JSON line per request (TEAMD_OFFLINE_RECORD, for tests). */
function recordRequests(file: string): (seen: { teammate: string; system: string; tools: readonly string[] }) => void {
  return (seen) => fs.appendFileSync(file, `${JSON.stringify(seen)}\n`);
}
