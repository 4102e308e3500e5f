import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { ShellLauncher } from '../contracts/tool.js';
import { describeSandbox, detectSandbox, sandboxFromEnv, wrapServer, type SandboxLayout, type WrappedCommand } from '../sandbox/sandbox.js';
import { createShellLauncher, type ShellLauncherOptions } from '../sandbox/shell-launcher.js';
import { baseLayout, layoutWith, networkPolicyOf, type SandboxBase } from '../sandbox/sandbox-view.js';
import { NetProxy } from '../sandbox/net-proxy.js';
import { proxyEnv } from '../sandbox/net-bridge.js';
import { urlHostAllowed, type NetVerdict } from '../sandbox/net-policy.js';
import type { SandboxSettings } from '../settings/sandbox-settings.js';

export interface TeammateSandbox {
  /** Launches its commands: sandboxed where possible, with an environment without secrets. */
  readonly shell: ShellLauncher;
  /** Wraps one of the workspace's MCP servers as its commands are (teammates can rewrite .mcp.json), with the variables it runs with. */
  wrapServer(command: string): WrappedCommand & { readonly env: Record<string, string> };
  /**
   * Commands started that could outlive the teammate: a sandboxed command's whole tree ends with
   * it (PID namespace, --die-with-parent), so only the others are counted.
   */
  unconfined(): number;
  /** Whether a URL the teammate fetches on a command's say (a workspace MCP server over HTTP) may be reached: as the proxy would judge it. */
  hostAllowed(host: string): NetVerdict;
  /** Stops the proxy (its commands have ended). */
  close(): Promise<void>;
}

/**
 * The sandbox a teammate's commands run in, as the settings require: none found where one is
 * required refuses the start, saying how to install it; running unsandboxed is logged as a
 * warning. With bubblewrap, its commands' network goes through a proxy this process runs on a
 * Unix socket, which lets through only what the settings allow.
 */
export async function teammateSandbox(
  options: Pick<ShellLauncherOptions, 'mode' | 'envPolicy' | 'marker'> &
    SandboxBase & {
      readonly name: string;
      /** Where the proxy's socket goes (the state folder's run/, hidden from commands). */
      readonly runDir: string;
      /** Named in the refusal: where the sandbox setting lives. */
      readonly configFile: string;
      /** The team's and role's `sandbox` settings in force, read at each launch. */
      readonly settings: () => SandboxSettings;
      /** Told how many requests the proxy refused, at most once a second (teamd status adds them up). */
      readonly reportRefused: (count: number) => void;
      readonly logger: Logger;
    },
): Promise<TeammateSandbox> {
  const { mode, env, logger } = options;
  const kind = sandboxFromEnv(env) ?? detectSandbox();
  if (kind.kind === 'none' && mode === 'required') {
    throw new TeamdError('USAGE', `commands cannot be sandboxed: ${kind.why}; or set "sandbox": "preferred" in the settings of ${options.configFile}`);
  }
  if (kind.kind === 'none' || mode === 'off') logger.warn({ sandbox: describeSandbox(kind, mode) }, 'commands are NOT sandboxed');
  const confined = kind.kind === 'bwrap' && mode !== 'off';
  if (kind.kind === 'bwrap' && confined && kind.noNet) logger.warn({ sandbox: describeSandbox(kind, mode) }, 'commands have the network unleashed');
  let refused = 0;
  let report: NodeJS.Timeout | null = null;
  const flush = (): void => {
    report = null;
    if (refused > 0) options.reportRefused(refused);
    refused = 0;
  };
  const proxy =
    confined && kind.kind === 'bwrap' && !kind.noNet
      ? new NetProxy({
          policy: () => networkPolicyOf(options.settings()),
          logger,
          refused: () => {
            refused++;
            report ??= setTimeout(flush, REPORT_EVERY_MS).unref();
          },
        })
      : null;
  const socket = proxy ? await listenProxy(proxy, options.runDir, options.name) : null;
  const base: SandboxBase = { workspace: options.workspace, stateDir: options.stateDir, env, execPath: options.execPath };
  const fixed: SandboxLayout = confined ? baseLayout(base) : { workspace: options.workspace, hidden: [options.stateDir] };
  const layout = (): SandboxLayout => {
    const view = layoutWith(fixed, options.settings(), base);
    return socket ? { ...view, network: { socket: socket.path, node: options.execPath } } : view;
  };
  const launcher = createShellLauncher({ kind, mode, layout, baseEnv: env, envPolicy: options.envPolicy, marker: options.marker });
  let unconfined = 0;
  return {
    shell: {
      launch: (command, workdir) => {
        const launch = launcher.launch(command, workdir);
        if (!launch.confined) unconfined++;
        return launch;
      },
    },
    wrapServer: (command) => {
      const wrapped = wrapServer(kind, mode, command, layout());
      return { ...wrapped, env: wrapped.confined && socket ? proxyEnv() : {} };
    },
    unconfined: () => unconfined,
    hostAllowed: (host) => urlHostAllowed(host, networkPolicyOf(options.settings())),
    close: async () => {
      await proxy?.close();
      if (report) clearTimeout(report);
      flush();
      socket?.remove();
    },
  };
}

/** How often at most the daemon hears of refused requests: a command that tries a thousand hosts costs one roster write a second. */
const REPORT_EVERY_MS = 1_000;

/** Unix socket paths are short (108 bytes): a state folder deep in the tree gets its socket in a private folder of the system's temp. */
const MAX_SOCKET_PATH = 100;

async function listenProxy(proxy: NetProxy, runDir: string, name: string): Promise<{ path: string; remove: () => void }> {
  let socketPath = path.join(runDir, `proxy-${name}.sock`);
  let owned: string | null = null;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    owned = fs.mkdtempSync(path.join(os.tmpdir(), 'teamd-proxy-'));
    socketPath = path.join(owned, 'proxy.sock');
  }
  fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  await proxy.listen(socketPath);
  return {
    path: socketPath,
    remove: () => {
      fs.rmSync(owned ?? socketPath, { recursive: true, force: true });
    },
  };
}
