import path from 'node:path';
import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { openStore } from '../store/open/open-store.js';
import { storeSetting } from '../store/store-setting.js';
import { ProtocolKey } from '../store/protocol-key.js';
import { createLogger, type Logger } from '../log/logger.js';
import { statePaths } from '../paths.js';
import { readConfig } from '../roster/roster.js';
import { LastGoodRoster } from '../roster/last-good-roster.js';
import { leadPowers } from './lead-powers.js';
import { scanFileOf } from '../inbox/request-scan.js';
import { SPAWNED_BY_ENV, spawnMarker } from '../supervisor/leftovers.js';
import { relayedListen } from './relayed-events.js';
import { processDaemonLink, type DaemonLink } from './daemon-link.js';
import { SessionStore } from './session-store.js';
import { BackgroundJobs, DEFAULT_JOB_LIMITS } from '../jobs/background-jobs.js';
import { ScheduleStore } from '../cron/schedule-store.js';
import { publishTodos } from './published-todos.js';
import { MemoryStore } from '../memory/memory-store.js';
import { listSkills, skillFolders } from '../skills/skills.js';
import { TeammateRuntime, type RuntimeEnd } from './teammate-runtime.js';
import { teammateHeap } from './heap-wiring.js';
import { parseWorkerArgs } from './worker-args.js';
import { rosterBudget } from './token-budget.js';
import { policyGateMaker, settingsSourceFor } from './policy-wiring.js';
import { openMcpServers } from './mcp-wiring.js';
import { commandEnv, envPolicyOf } from '../sandbox/command-env.js';
import { isLeadAgent, leadTools, teammateIdentity } from './worker-identity.js';
import { housekeepingModelOf } from '../roster/housekeeping-model.js';
import { additionalRoots } from '../settings/settings.js';
import { loadRepairedSession } from './session-store.js';
import { teammateModel } from './model-wiring.js';
import { teammateSandbox } from './sandbox-wiring.js';

export { OFFLINE_URL_ENV } from '../contracts/offline-model.js';

export interface WorkerProcess {
  readonly argv: readonly string[];
  readonly proc: NodeJS.Process;
  /** Called with the teammate's logger once it exists: the entry routes process-wide warnings into it. */
  readonly onLogger?: (logger: Logger) => void;
  /** NODE_EXTRA_CA_CERTS that Node did not load at start (platform/http/extra-ca.ts): the teammate's TLS adds it. */
  readonly extraCaFile?: string | null;
}

export interface WorkerEnd {
  readonly end: RuntimeEnd;
  readonly logger: Logger;
  readonly unconfinedStarted: number;
  /** It stopped because its heap grew past its bound: it exits with HEAP_EXIT_CODE. */
  readonly heapOver: boolean;
}

/**
 * Wires one teammate process: logger, board, mailbox, inbox consumer, doorbell, model client,
 * saved session, the link to the daemon. The entry file turns the outcome into an exit.
 */
export async function runWorker({ argv, proc, onLogger, extraCaFile = null }: WorkerProcess): Promise<WorkerEnd> {
  const args = parseWorkerArgs(argv);
  const paths = statePaths(args.dir);
  const config = readConfig(paths.config);
  const logger = createLogger({
    destination: paths.logFile(args.name),
    bindings: { teammate: args.name },
    rotation: { maxBytes: config.settings.logMaxBytes, keep: config.settings.logFiles },
  });
  const link: DaemonLink = processDaemonLink(proc);
  const member = config.members.find((m) => m.name === args.name);
  if (!member) throw new TeamdError('UNKNOWN_MEMBER', `${args.name} is not on the roster ${paths.config}`);
  const roster = new LastGoodRoster(paths.config, config, logger);
  const modelName = member.model ?? config.settings.model;
  const model = teammateModel({ model: modelName, teammate: args.name, env: proc.env, settings: config.settings, logger, extraCaFile });
  const housekeepingName = housekeepingModelOf(config.settings, member.role, modelName);
  const housekeeping =
    housekeepingName === modelName
      ? null
      : teammateModel({ model: housekeepingName, teammate: args.name, env: proc.env, settings: config.settings, logger, extraCaFile });
  const sessions = new SessionStore(paths.sessionFile(args.name), logger);
  const session = loadRepairedSession(sessions, logger);
  const handled = new Set(session.handled);
  const locker = new FileLocker({ logger });
  // An unreachable store is waited for (backing off to 30 s), never a reason to fail a task; stopping ends the wait.
  const storeWait = new AbortController();
  const store = await openStore(storeSetting(paths, config.settings, proc.env), {
    paths,
    logger,
    // One connection, and no listening one: its daemon relays its messages' notifications. A
    // host's connections are its daemon's few plus one per teammate (docs/stores.md, "Connections").
    poolSize: 1,
    part: args.name,
    listen: relayedListen(link),
    patience: { maxWaitMs: STORE_PATIENCE_MS, signal: storeWait.signal },
  });
  const looked = store.boardLooks;
  // Its own inbox only, and the daemon's bell for ready work (link below): a change elsewhere
  // wakes nobody here. The safety re-check covers a lost event and a daemon that does not ring.
  const bell = await store.bell({ inbox: args.name }, { rescanMs: config.settings.recheckMs });
  const workspace = path.dirname(paths.root);
  const marker = { name: SPAWNED_BY_ENV, value: spawnMarker(proc.pid, paths.root) };
  const settings = settingsSourceFor(paths, member.role, proc.env.HOME, logger);
  const sandbox = await teammateSandbox({
    name: args.name,
    mode: config.settings.sandbox,
    workspace,
    stateDir: paths.root,
    runDir: paths.runDir,
    execPath: proc.execPath,
    configFile: paths.config,
    env: proc.env,
    envPolicy: envPolicyOf(config.settings),
    marker,
    settings: () => settings.current().sandbox,
    reportRefused: (refused) => link.send({ type: 'network', refused }),
    logger,
  });
  // What commands, hooks and the workspace's MCP servers see of this process's environment.
  const commandsEnv = commandEnv(proc.env, envPolicyOf(config.settings), marker);
  const protocolKey = new ProtocolKey(paths.protocolKey);
  const mailbox = store.mail;
  const shell = sandbox.shell;
  const jobs = new BackgroundJobs({
    name: args.name,
    dir: paths.jobDir(args.name),
    shell,
    limits: { ...DEFAULT_JOB_LIMITS, timeoutMs: config.settings.jobTimeoutMs, outputCapBytes: config.settings.jobOutputMaxBytes },
    onEnded: () => bell.ring('change', false),
    logger,
  });
  jobs.recover();
  const memory = new MemoryStore(paths, locker);
  const isLead = isLeadAgent(member);
  const mcp = await openMcpServers({
    name: args.name,
    role: member.role,
    workspace,
    paths,
    env: proc.env,
    commandEnv: commandsEnv,
    // The workspace's servers: in the sandbox (teammates can rewrite .mcp.json), with real pids in one process group.
    sandboxed: (command) => sandbox.wrapServer(command),
    hostAllowed: (host) => sandbox.hostAllowed(host),
    connectTimeoutMs: config.settings.mcpConnectTimeoutMs,
    toolTimeoutMs: config.settings.mcpToolTimeoutMs,
    logger,
    extraCaFile,
  });
  const heap = teammateHeap({
    limitBytes: config.settings.heapMaxBytes,
    logger,
    stop: () => runtime.stop(),
    exit: (code) => proc.exit(code),
    // V8's gc, which the start file installs with the teammate's V8 flags (platform/boot/teammate-v8.ts).
    gc: globalThis.gc,
  });
  const runtime = new TeammateRuntime({
    identity: teammateIdentity(member, workspace),
    ...(isLead
      ? { tools: leadTools(config.settings.leadTools), lead: leadPowers({ paths, mailbox, board: store.board, scanFile: scanFileOf(store, paths) }) }
      : {}),
    stateDir: paths.root,
    shell,
    verifyGrant: (message) => protocolKey.verify(message),
    logger,
    board: store.board,
    mailbox,
    consumer: mailbox.reader({ name: args.name, isHandled: (id) => handled.has(id), ...(isLead ? { cursor: 'lead-agent' as const } : {}) }),
    jobs,
    todos: (items) => {
      try {
        publishTodos(paths, args.name, items);
      } catch (error) {
        logger.warn({ err: error }, 'could not publish the plan for teamd status');
      }
    },
    knowledge: {
      skills: { list: () => listSkills(skillFolders(paths.skillsDir, workspace, proc.env), member.role) },
      memory: { remember: (scope, text) => memory.remember(scope, args.name, text) },
      teamMemory: () => memory.forPrompt('team', args.name),
      ownMemory: () => memory.forPrompt('me', args.name),
    },
    schedule: { store: new ScheduleStore(paths, locker), members: () => readConfig(paths.config).members },
    ...(mcp ? { mcp } : {}),
    bell,
    link,
    model: model.client,
    extraRoots: () => additionalRoots(settings.current(), workspace, proc.env.HOME),
    ...(housekeeping ? { housekeeping: { client: housekeeping.client, maxTokens: housekeeping.maxTokens } } : {}),
    sessions,
    session,
    idleTimeoutMs: config.settings.idleTimeoutMs,
    heap: heap.watch,
    maxTokens: model.maxTokens,
    compactThresholdTokens: config.settings.compactThresholdTokens,
    budget: rosterBudget(() => roster.read(), args.name),
    backoff: { baseMs: config.settings.modelRetryBaseMs, maxMs: config.settings.modelRetryMaxMs },
    maxTokensCap: model.outputCap,
    ...(looked ? { daemonCoversBoard: () => looked.covers() } : {}),
    makeGate: policyGateMaker({
      name: args.name,
      role: member.role,
      workspace,
      paths,
      sessionId: `${args.name}@${proc.pid}`,
      mailbox,
      bell,
      verifyGrant: (message) => protocolKey.verify(message),
      // Hooks see what commands see: the person's hook scripts read a payload the model wrote.
      env: commandsEnv,
      hookLaunch: (command) => shell.launch(command, workspace),
      settings,
      logger,
    }),
  });
  link.onMessage((message) => {
    switch (message.type) {
      case 'wake':
        runtime.wake(message.task);
        return;
      case 'store-event':
        // Rings the inbox bell (relayed-events.ts).
        return;
      case 'recheck-claim':
        void runtime.recheckClaim();
        return;
      case 'shutdown':
        logger.info({ reason: message.reason }, 'stop requested by the daemon');
        storeWait.abort();
        runtime.stop();
        return;
    }
  });
  proc.once('SIGTERM', () => {
    logger.info('SIGTERM: stopping after the current step');
    storeWait.abort();
    runtime.stop();
  });
  onLogger?.(logger);
  // Since this process began: what start-up costs inside the worker. process.uptime(), not
  // performance.now(): the global performance loads eight of Node's modules (~8 ms of the start).
  logger.info({ model: modelName, housekeepingModel: housekeepingName, startupMs: Math.round(process.uptime() * 1000) }, 'teammate started');
  try {
    const end = await runtime.run();
    // Its MCP servers' processes are not in the sandbox's PID namespace: counted as one.
    return { end, logger, unconfinedStarted: sandbox.unconfined() + (mcp ? 1 : 0), heapOver: heap.over() };
  } finally {
    heap.close();
    // Its jobs end with it (recorded lost, told at its next start); none outlives the teammate.
    jobs.stopAll('its teammate stopped while it ran');
    // Its MCP servers end with it: stdin closed, then SIGTERM, then SIGKILL to each one's process group.
    await mcp?.stopAll();
    await sandbox.close();
    await bell.close();
    await store.close();
  }
}

/** A day: a store down longer than that is an outage for the person, not something to wait out silently. */
const STORE_PATIENCE_MS = 24 * 60 * 60_000;
