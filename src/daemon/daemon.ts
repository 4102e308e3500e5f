import { OfflineModelServer } from '../model/offline/server.js';
import { checkModelId } from '../model/model-check.js';
import { housekeepingModelOf } from '../roster/housekeeping-model.js';
import { OFFLINE_KEY_ENV, OFFLINE_URL_ENV } from '../contracts/offline-model.js';
import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { openStore } from '../store/open/open-store.js';
import { type TeamStore } from '../contracts/team-store.js';
import { describeStore, storeSetting } from '../store/store-setting.js';
import type { Logger } from '../log/logger.js';
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
import { cleanUpAfterEarlierDaemon, sweepTemps } from '../supervisor/clean-up.js';
import { RequestScanKeeper } from '../inbox/request-scan.js';
import { ControlServer } from './control-server.js';
import type { ControlRequest } from '../contracts/control-protocol.js';
import { acquirePidFile, releasePidFile, type PidInfo } from '../proc/pid-file.js';
import { relayTeammateEvents } from './event-relay.js';
import { LEAD } from '../contracts/roster.js';
import { SharedHost } from './shared-host.js';
import { openOfflineModel } from './offline-model.js';
import type { ServiceNotifier } from '../platform/systemd-notify.js';
import type { TeamSettings } from '../contracts/roster.js';
import { startNotifications } from './daemon-notifier.js';
import type { Notifier } from '../notify/notifier.js';

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
  /** The service manager that started it (systemd, Type=notify), told when it is ready and when it stops. */
  readonly service?: ServiceNotifier | null;
  /** Starts the dashboard the `ui` setting asks for (src/ui/daemon-ui.ts, given by the CLI: the daemon's floor is below it). */
  readonly dashboard?: DashboardStarter;
}

export type DashboardStarter = (parts: {
  readonly paths: StatePaths;
  readonly store: TeamStore;
  readonly logger: Logger;
  readonly setting: NonNullable<TeamSettings['ui']>;
  readonly env: NodeJS.ProcessEnv;
}) => Promise<{ readonly url: string; close(): Promise<void> }>;

/** The supervisor daemon of one state folder: pid file, control socket, teammate processes. */
export class Daemon {
  readonly info: PidInfo;
  /** Resolves once the daemon has stopped everything it started. */
  readonly stopped: Promise<void>;
  private stopping: Promise<void> | null = null;
  private resolveStopped: () => void = () => {};
  private server: ControlServer | null = null;
  /** The dashboard it serves, or why it could not start one (the daemon serves its team all the same). */
  private dashboard: { readonly url: string; close(): Promise<void> } | { readonly error: string } | null = null;
  /** The `notifications` setting's notifier (webhooks, Notification hooks), when the settings have one. */
  private notifier: Notifier | null = null;

  private constructor(
    private readonly options: DaemonOptions,
    private readonly supervisor: Supervisor,
    info: PidInfo,
    private readonly model: OfflineModelServer,
    private readonly roster: RosterStore,
    private readonly scheduler: Scheduler,
    private readonly store: TeamStore,
    private readonly shared: SharedHost | null,
    private readonly storeWait: AbortController,
    private readonly relay: { close(): Promise<void> } | null,
  ) {
    this.info = info;
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
  }

  static async start(options: DaemonOptions): Promise<Daemon> {
    const { paths, logger } = options;
    const locker = new FileLocker({ logger });
    const sandbox = checkSandbox(new RosterStore(paths).read().settings.sandbox, logger);
    const info = await acquirePidFile(paths, locker, logger, new Date(), sandbox);
    // First, whatever comes next: a dead writer's temp copy of config.json holds the store's URL, password included.
    sweepTemps(paths, logger);
    let supervisor: Supervisor | null = null;
    let model: OfflineModelServer | null = null;
    let scheduler: Scheduler | null = null;
    let store: TeamStore | null = null;
    let shared: SharedHost | null = null;
    let relay: { close(): Promise<void> } | null = null;
    const storeWait = new AbortController();
    try {
      // A shared store gets this host's roster on every change (once the store is open, below).
      const roster = new RosterStore(paths, { logger, onChange: (config) => shared?.changed(config.members) });
      model = await openOfflineModel(paths, roster, options.workerEnv, logger);
      const { settings } = roster.update((config) => ({ ...config, settings: { ...config.settings, ...definedOnly(options.settings ?? {}) } }));
      store = await openStore(storeSetting(paths, settings, options.workerEnv), {
        paths,
        logger,
        migrate: true,
        part: 'daemon',
        // Looks, heartbeats and notices wait out a store outage; stopping ends the wait.
        patience: { maxWaitMs: 24 * 60 * 60_000, signal: storeWait.signal },
      });
      logger.info({ store: describeStore(store.setting) }, 'store open');
      const { board, mail: mailbox } = store;
      // tail -f .team/inbox/lead.jsonl works from the start, not from the lead's first message.
      await mailbox.openInbox(LEAD).catch((error: unknown) => logger.warn({ err: error }, "could not make the lead's inbox file"));
      shared = SharedHost.open({
        store,
        members: () => roster.read().members,
        leaseMs: () => roster.read().settings.hostLeaseMs,
        mailbox,
        logger,
      });
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
        // re-checks skip their own scans of the board (store/files/look-marker.ts).
        openDoorbell: async () => teamBell({ team: true }, looks ? {} : { rescanMs: settings.recheckMs }),
        ...(looks ? { markLooked: (startedAt: number) => looks.mark(startedAt) } : {}),
        // The lead's inbox grows with the team's life; `teamd status` reads it only past this scan,
        // where the store cannot read requests by type itself.
        ...(mailbox.readsByType ? {} : { afterLook: async () => requestScan.soon() }),
        ...(shared ? { directory: shared.directory() } : {}),
        workerScript: options.workerScript,
        workerEnv: { ...options.workerEnv, [OFFLINE_URL_ENV]: model.url, [OFFLINE_KEY_ENV]: model.key, [SANDBOX_ENV]: JSON.stringify(sandbox.kind) },
        defaultModel: () => roster.read().settings.model,
        housekeepingModel: (role, own) => housekeepingModelOf(roster.read().settings, role, own),
        checkModel: (id) => checkModelId(id, { apiKey: options.workerEnv.ANTHROPIC_API_KEY ?? '', baseURL: options.workerEnv.ANTHROPIC_BASE_URL, logger }),
        ...(options.restartPolicy ? { restartPolicy: options.restartPolicy } : {}),
        ladder: options.ladder ?? { ipcGraceMs: settings.ipcGraceMs, termGraceMs: settings.termGraceMs },
      });
      scheduler = new Scheduler({
        store: new ScheduleStore(paths, locker),
        deliver: scheduledDelivery({ mailbox, board, members: () => roster.read().members, logger }),
        logger: logger.child({ component: 'scheduler' }),
      });
      // Before any teammate starts: in PostgreSQL its messages' notifications come through here.
      const running = supervisor;
      relay = await relayTeammateEvents(store, (name, message) => running.tell(name, message));
      const daemon = new Daemon(options, supervisor, info, model, roster, scheduler, store, shared, storeWait, relay);
      // Before any task is resumed: nothing an earlier daemon's teammates started may run alongside its second run.
      cleanUpAfterEarlierDaemon(paths, logger);
      const inotify = inotifyWarning(roster.read().members.length);
      if (inotify) logger.warn({ inotify }, 'the team may not fit the inotify limits');
      await supervisor.start();
      await shared?.start(supervisor);
      // After the teammates are up: what came due while no daemon ran is delivered (or reported) now.
      await scheduler.start();
      daemon.server = await ControlServer.listen(paths.daemonSocket, (request) => daemon.handle(request), logger);
      await daemon.startDashboard();
      daemon.notifier = await startNotifications({ paths, store, roster, logger, env: options.workerEnv }).catch((error: unknown) => {
        logger.error({ err: error }, 'notifications did not start; the team runs on without them');
        return null;
      });
      logger.info({ dir: paths.root }, 'daemon ready');
      const members = roster.read().members.length;
      options.service?.ready(`ready: ${members} teammate${members === 1 ? '' : 's'}, pid ${process.pid}`);
      return daemon;
    } catch (error) {
      // Never leave a half-started daemon's teammates behind.
      await shared?.close(false);
      await scheduler?.close();
      await supervisor?.stopAll();
      await relay?.close();
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
      case 'ui':
        return this.dashboard === null
          ? { url: null, error: null }
          : 'url' in this.dashboard
            ? { url: this.dashboard.url, error: null }
            : { url: null, ...this.dashboard };
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
      this.options.service?.stopping('stopping the teammates');
      this.storeWait.abort();
      await this.shared?.stopServing();
      if (this.dashboard && 'close' in this.dashboard)
        await this.dashboard.close().catch((error: unknown) => logger.warn({ err: error }, 'the dashboard did not close cleanly'));
      await this.notifier?.close().catch((error: unknown) => logger.warn({ err: error }, 'notifications did not close cleanly'));
      await this.scheduler.close();
      const rungs = await this.supervisor.stopAll();
      await this.relay?.close();
      await this.server?.close();
      await this.model.close();
      // The roster as the team last sees it (every teammate stopped), then no more beats: other hosts take this one's tasks.
      await this.shared?.close(true);
      await this.store.close();
      this.roster.close();
      releasePidFile(paths);
      logger.info({ rungs }, 'daemon stopped');
      await this.options.service?.settled();
      this.resolveStopped();
    })();
    return this.stopping;
  }

  /** The `ui` setting's dashboard: a failure to start it (a taken port) is logged and reported by teamd ui, and the team runs on. */
  private async startDashboard(): Promise<void> {
    const setting = this.roster.read().settings.ui;
    if (!setting || !this.options.dashboard) return;
    const logger = this.options.logger.child({ component: 'ui' });
    try {
      this.dashboard = await this.options.dashboard({ paths: this.options.paths, store: this.store, logger, setting, env: this.options.workerEnv });
    } catch (error) {
      this.dashboard = { error: error instanceof Error ? error.message : String(error) };
      logger.error({ err: error }, `the dashboard did not start: ${this.dashboard.error}`);
    }
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
