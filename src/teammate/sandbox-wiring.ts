import { TeamdError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { ShellLauncher } from '../contracts/tool.js';
import {
  describeSandbox,
  detectSandbox,
  sandboxFromEnv,
  secretPlaces,
  wrapServer,
  type SandboxLayout,
  type WrappedCommand,
  secretFiles,
  teamCaches,
} from '../sandbox/sandbox.js';
import { createShellLauncher, type ShellLauncherOptions } from '../sandbox/shell-launcher.js';

export interface TeammateSandbox {
  /** Launches its commands: sandboxed where possible, with an environment without secrets. */
  readonly shell: ShellLauncher;
  /** Wraps one of the workspace's MCP servers as its commands are (teammates can rewrite .mcp.json). */
  wrapServer(command: string): WrappedCommand;
  /**
   * Commands started that could outlive the teammate: a sandboxed command's whole tree ends with
   * it (PID namespace, --die-with-parent), so only the others are counted.
   */
  unconfined(): number;
}

/**
 * The sandbox a teammate's commands run in, as the settings require: none found where one is
 * required refuses the start, saying how to install it; running unsandboxed is logged as a warning.
 */
export function teammateSandbox(
  options: Pick<ShellLauncherOptions, 'mode' | 'envPolicy' | 'marker'> & {
    readonly workspace: string;
    /** Hidden from every command, with the other secret places of the environment. */
    readonly stateDir: string;
    /** Named in the refusal: where the sandbox setting lives. */
    readonly configFile: string;
    readonly env: NodeJS.ProcessEnv;
    readonly logger: Logger;
  },
): TeammateSandbox {
  const { mode, env } = options;
  const kind = sandboxFromEnv(env) ?? detectSandbox();
  if (kind.kind === 'none' && mode === 'required') {
    throw new TeamdError('USAGE', `commands cannot be sandboxed: ${kind.why}; or set "sandbox": "preferred" in the settings of ${options.configFile}`);
  }
  if (kind.kind === 'none' || mode === 'off') options.logger.warn({ sandbox: describeSandbox(kind, mode) }, 'commands are NOT sandboxed');
  const layout: SandboxLayout = {
    workspace: options.workspace,
    hidden: [options.stateDir, ...secretPlaces(env)],
    hiddenFiles: secretFiles(env),
    ...(kind.kind === 'bwrap' && mode !== 'off' ? { caches: teamCaches(options.stateDir, env) } : {}),
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
    wrapServer: (command) => wrapServer(kind, mode, command, layout),
    unconfined: () => unconfined,
  };
}
