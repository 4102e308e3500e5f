import type { Logger } from '../log/logger.js';
import { readMcpConfig, serversFor } from '../mcp/mcp-config.js';
import type { McpServers } from '../mcp/mcp-servers.js';
import type { LaunchDeps } from '../mcp/server-launch.js';
import type { StatePaths } from '../paths.js';
import { mcpChoiceFor } from './policy-wiring.js';
import { createHttpClient } from '../platform/http/http-fetch.js';

/** Lines of one server's stderr logged per teammate life; the rest are dropped (the last ones still explain a crash). */
const STDERR_LINES_LOGGED = 200;

export interface McpWiring {
  readonly name: string;
  readonly role: string;
  readonly workspace: string;
  readonly paths: StatePaths;
  readonly env: NodeJS.ProcessEnv;
  readonly commandEnv: NodeJS.ProcessEnv;
  readonly sandboxed: LaunchDeps['sandboxed'];
  readonly hostAllowed?: LaunchDeps['hostAllowed'];
  readonly connectTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly logger: Logger;
  /** NODE_EXTRA_CA_CERTS that Node did not load at start: servers over HTTPS then go through a fetch that adds it. */
  readonly extraCaFile?: string | null;
}

/**
 * The teammate's MCP servers: the configured ones its role uses, connecting from now on; null
 * when there are none (then the SDK is never loaded). A refused config file is logged with
 * why, and the servers of the other file are used.
 */
export async function openMcpServers(deps: McpWiring): Promise<McpServers | null> {
  const { logger } = deps;
  const config = readMcpConfig(deps.paths.root);
  for (const problem of config.problems) logger.error({ problem }, 'MCP config file refused; its servers are not used');
  const servers = serversFor(config, mcpChoiceFor(deps.paths, deps.role, deps.env.HOME));
  if (servers.length === 0) return null;
  const [{ McpServers }, { openServer }, { publishServers }] = await Promise.all([
    import('../mcp/mcp-servers.js'),
    import('../mcp/server-launch.js'),
    import('../mcp/published-servers.js'),
  ]);
  const logged = new Map<string, number>();
  // Node did not load NODE_EXTRA_CA_CERTS in this process (platform/http/extra-ca.ts): servers over
  // HTTPS go through the fetch that adds it, as the model calls do, with web stream bodies, which
  // their client pipes.
  const fetch = deps.extraCaFile ? createHttpClient({ extraCaFile: deps.extraCaFile, warn: (message) => logger.warn(message) }).webFetch : undefined;
  const hub: McpServers = new McpServers({
    servers,
    open: (server) =>
      openServer(server, {
        workspace: deps.workspace,
        env: deps.env,
        commandEnv: deps.commandEnv,
        sandboxed: deps.sandboxed,
        ...(deps.hostAllowed ? { hostAllowed: deps.hostAllowed } : {}),
        ...(fetch ? { fetch } : {}),
        onStderr: (name, line) => {
          const count = (logged.get(name) ?? 0) + 1;
          logged.set(name, count);
          if (count <= STDERR_LINES_LOGGED) logger.info({ mcp: name, stderr: line.slice(0, 1000) }, 'MCP server stderr');
          else if (count === STDERR_LINES_LOGGED + 1) logger.info({ mcp: name }, 'MCP server stderr: further lines are not logged');
        },
      }),
    connectTimeoutMs: deps.connectTimeoutMs,
    toolTimeoutMs: deps.toolTimeoutMs,
    logger,
    onChange: (view) => {
      try {
        publishServers(deps.paths, deps.name, view);
      } catch (error) {
        logger.warn({ err: error }, 'could not publish the MCP servers for teamd mcp list');
      }
    },
  });
  hub.start();
  return hub;
}
