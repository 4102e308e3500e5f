import path from 'node:path';
import { repairConversation } from '../agent/conversation.js';
import { TeamdError } from '../errors.js';
import { FileLocker } from '../fs/file-lock.js';
import { openStore } from '../store/open/open-store.js';
import { storeSetting } from '../store/store-setting.js';
import { ProtocolKey } from '../store/protocol-key.js';
import { createLogger, type Logger } from '../logger.js';
import { createAnthropicClient } from '../model/model-client.js';
import { statePaths } from '../paths.js';
import { readConfig } from '../roster/roster.js';
import { LEAD, LEAD_ROLE } from '../contracts/roster.js';
import { LastGoodRoster } from '../roster/last-good-roster.js';
import { ALL_TOOLS, LEAD_TOOLS } from '../tools/registry.js';
import { leadPowers } from './lead-powers.js';
import { scanFileOf } from '../inbox/request-scan.js';
import { describeSandbox, detectSandbox, sandboxFromEnv, secretPlaces, wrapServer } from '../sandbox/sandbox.js';
import { createShellLauncher } from '../sandbox/shell-launcher.js';
import { SPAWNED_BY_ENV, spawnMarker } from '../supervisor/leftovers.js';
import { processDaemonLink, type DaemonLink } from './daemon-link.js';
import { SessionStore } from './session-store.js';
import { BackgroundJobs, DEFAULT_JOB_LIMITS } from '../jobs/background-jobs.js';
import { ScheduleStore } from '../cron/schedule-store.js';
import { publishTodos } from './published-todos.js';
import { MemoryStore } from '../memory/memory-store.js';
import { listSkills, userSkillsDir } from '../skills/skills.js';
import { TeammateRuntime, type RuntimeEnd } from './teammate-runtime.js';
import { teammateHeap } from './heap-wiring.js';
import { parseWorkerArgs } from './worker-args.js';
import { rosterBudget } from './token-budget.js';
import { servedModel } from '../model/model-catalog.js';
import { policyGateMaker } from './policy-wiring.js';
import { openMcpServers } from './mcp-wiring.js';
import { commandEnv } from '../sandbox/command-env.js';

export { OFFLINE_URL_ENV } from '../contracts/offline-model.js';
import { OFFLINE_KEY_ENV, OFFLINE_URL_ENV } from '../contracts/offline-model.js';

export interface WorkerProcess {
  readonly argv: readonly string[];
  readonly proc: NodeJS.Process;
  /** Called with the teammate's logger once it exists: the entry routes process-wide warnings into it. */
  readonly onLogger?: (logger: Logger) => void;
  /** NODE_EXTRA_CA_CERTS that Node did not load at start (model/http/extra-ca.ts): the teammate's TLS adds it. */
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
  const model =
    modelName === 'offline'
      ? createAnthropicClient({
          model: 'offline',
          apiKey: requireEnv(proc, OFFLINE_KEY_ENV),
          baseURL: requireEnv(proc, OFFLINE_URL_ENV),
          teammate: args.name,
          logger,
          stallMs: config.settings.modelStallMs,
          extraCaFile,
        })
      : createAnthropicClient({
          model: modelName,
          apiKey: requireEnv(proc, 'ANTHROPIC_API_KEY'),
          baseURL: proc.env.ANTHROPIC_BASE_URL,
          teammate: args.name,
          logger,
          stallMs: config.settings.modelStallMs,
          extraCaFile,
        });
  // A model we do not know gets a cap every current model allows.
  const outputCap = servedModel(modelName, new Date())?.maxOutputTokens ?? 32_000;
  if (config.settings.maxTokens > outputCap)
    logger.warn({ maxTokens: config.settings.maxTokens, cap: outputCap }, `maxTokens is over what ${modelName} allows; using ${outputCap}`);
  const sessions = new SessionStore(paths.sessionFile(args.name), logger);
  const session = sessions.load();
  const repairs = repairConversation(session.messages);
  if (repairs.droppedBlocks + repairs.answeredCalls + repairs.droppedResults > 0) {
    logger.warn({ repairs }, 'repaired the saved conversation so the API accepts it');
    sessions.rewrite(session);
  }
  const handled = new Set(session.handled);
  const locker = new FileLocker({ logger });
  // An unreachable store is waited for (backing off to 30 s), never a reason to fail a task; stopping ends the wait.
  const storeWait = new AbortController();
  const store = await openStore(storeSetting(paths, config.settings, proc.env), {
    paths,
    logger,
    poolSize: 2,
    patience: { maxWaitMs: STORE_PATIENCE_MS, signal: storeWait.signal },
  });
  const looked = store.boardLooks;
  // Its own inbox only, and the daemon's bell for ready work (link below): a change elsewhere
  // wakes nobody here. The safety re-check covers a lost event and a daemon that does not ring.
  const bell = await store.bell({ inbox: args.name }, { rescanMs: config.settings.recheckMs });
  const workspace = path.dirname(paths.root);
  const sandbox = sandboxFromEnv(proc.env) ?? detectSandbox();
  if (sandbox.kind === 'none' && config.settings.sandbox === 'required') {
    throw new TeamdError('USAGE', `commands cannot be sandboxed: ${sandbox.why}; or set "sandbox": "preferred" in the settings of ${paths.config}`);
  }
  if (sandbox.kind === 'none' || config.settings.sandbox === 'off')
    logger.warn({ sandbox: describeSandbox(sandbox, config.settings.sandbox) }, 'commands are NOT sandboxed');
  const protocolKey = new ProtocolKey(paths.protocolKey);
  const mailbox = store.mail;
  // Commands and servers whose processes could outlive this one: a sandboxed command's whole tree
  // ends with it (PID namespace, --die-with-parent), so only the others are counted.
  let unconfinedStarted = 0;
  const launcher = createShellLauncher({
    kind: sandbox,
    mode: config.settings.sandbox,
    layout: { workspace, hidden: [paths.root, ...secretPlaces(proc.env)] },
    baseEnv: proc.env,
    secretNames: config.settings.secretEnv,
    marker: { name: SPAWNED_BY_ENV, value: spawnMarker(proc.pid, paths.root) },
  });
  const shell: typeof launcher = {
    launch: (command, workdir) => {
      const launch = launcher.launch(command, workdir);
      if (!launch.confined) unconfinedStarted++;
      return launch;
    },
  };
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
  // The member `lead` with the role `lead` is the lead agent: the lead's tools and powers, its own cursor in lead.jsonl, no task of its own.
  const isLead = args.name === LEAD && member.role === LEAD_ROLE;
  const marker = { name: SPAWNED_BY_ENV, value: spawnMarker(proc.pid, paths.root) };
  const mcp = await openMcpServers({
    name: args.name,
    role: member.role,
    workspace,
    paths,
    env: proc.env,
    commandEnv: commandEnv(proc.env, config.settings.secretEnv, marker),
    // The workspace's servers: in the sandbox (teammates can rewrite .mcp.json), with real pids in one process group.
    sandboxed: (command) => wrapServer(sandbox, config.settings.sandbox, command, { workspace, hidden: [paths.root, ...secretPlaces(proc.env)] }),
    connectTimeoutMs: config.settings.mcpConnectTimeoutMs,
    toolTimeoutMs: config.settings.mcpToolTimeoutMs,
    logger,
    extraCaFile,
  });
  if (mcp) unconfinedStarted++;
  const heap = teammateHeap({
    limitBytes: config.settings.heapMaxBytes,
    logger,
    stop: () => runtime.stop(),
    exit: (code) => proc.exit(code),
    // V8's gc, which the start file installs with the teammate's V8 flags (boot/teammate-v8.ts).
    gc: globalThis.gc,
  });
  const runtime = new TeammateRuntime({
    identity: {
      name: args.name,
      role: member.role,
      team: path.basename(workspace),
      workspace,
      prompt: member.prompt,
      planRequired: member.plan === true && !isLead,
      lead: isLead,
    },
    // The settings may widen the lead's tools (leadTools): bash and file writes, say.
    ...(isLead
      ? {
          tools: [...LEAD_TOOLS, ...ALL_TOOLS.filter((tool) => (config.settings.leadTools as readonly string[]).includes(tool.name))],
          lead: leadPowers({ paths, mailbox, scanFile: scanFileOf(store, paths) }),
        }
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
      skills: { list: () => listSkills([paths.skillsDir, userSkillsDir(proc.env)], member.role) },
      memory: { remember: (scope, text) => memory.remember(scope, args.name, text) },
      teamMemory: () => memory.forPrompt('team', args.name),
      ownMemory: () => memory.forPrompt('me', args.name),
    },
    schedule: { store: new ScheduleStore(paths, locker), members: () => readConfig(paths.config).members },
    ...(mcp ? { mcp } : {}),
    bell,
    link,
    model,
    sessions,
    session,
    idleTimeoutMs: config.settings.idleTimeoutMs,
    heap: heap.watch,
    // Never more than the model allows: a maxTokens set too high would have every request refused.
    maxTokens: Math.min(config.settings.maxTokens, outputCap),
    compactThresholdTokens: config.settings.compactThresholdTokens,
    budget: rosterBudget(() => roster.read(), args.name),
    backoff: { baseMs: config.settings.modelRetryBaseMs, maxMs: config.settings.modelRetryMaxMs },
    maxTokensCap: outputCap,
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
      env: proc.env,
      logger,
    }),
  });
  link.onMessage((message) => {
    switch (message.type) {
      case 'wake':
        runtime.wake(message.task);
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
  logger.info({ model: modelName, startupMs: Math.round(process.uptime() * 1000) }, 'teammate started');
  try {
    const end = await runtime.run();
    return { end, logger, unconfinedStarted, heapOver: heap.over() };
  } finally {
    heap.close();
    // Its jobs end with it (recorded lost, told at its next start); none outlives the teammate.
    jobs.stopAll('its teammate stopped while it ran');
    // Its MCP servers end with it: stdin closed, then SIGTERM, then SIGKILL to each one's process group.
    await mcp?.stopAll();
    await bell.close();
    await store.close();
  }
}

/** A day: a store down longer than that is an outage for the person, not something to wait out silently. */
const STORE_PATIENCE_MS = 24 * 60 * 60_000;

function requireEnv(proc: NodeJS.Process, name: string): string {
  const value = proc.env[name];
  if (!value) throw new TeamdError('USAGE', `${name} is not set for this teammate (the daemon passes it; for a real model, export it before teamd start)`);
  return value;
}
