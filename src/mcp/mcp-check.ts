import type { Logger } from '../log/logger.js';
import type { ServerConfig } from './mcp-config.js';
import { McpConnection } from './mcp-connection.js';
import { apiToolName } from './mcp-tool.js';
import { openServer, type LaunchDeps } from './server-launch.js';

export interface CheckReport {
  readonly name: string;
  readonly source: ServerConfig['source'];
  readonly file: string;
  readonly type: 'stdio' | 'http' | 'sse';
  readonly ok: boolean;
  readonly ms: number;
  /** The names the model sees, and the server's own. */
  readonly tools: readonly { readonly name: string; readonly serverName: string; readonly description: string }[];
  readonly problem: string | null;
  /** The last lines the server wrote to stderr (a stdio server): what a failure says of itself. */
  readonly stderr: readonly string[];
}

/** Lines of a server's stderr kept for its report. */
const STDERR_LINES = 10;

/**
 * Starts each server once, as a teammate would (same launch, same sandbox for the workspace's
 * servers), lists its tools, and stops it: what it offers, or why it failed. All at once, each
 * bounded by the connect timeout.
 */
export async function checkServers(
  servers: readonly ServerConfig[],
  deps: { launch: LaunchDeps; connectTimeoutMs: number; logger: Logger },
): Promise<CheckReport[]> {
  return Promise.all(
    servers.map(async (server) => {
      const started = performance.now();
      const stderr: string[] = [];
      const launch: LaunchDeps = {
        ...deps.launch,
        onStderr: (name, line) => {
          stderr.push(line.slice(0, 1000));
          if (stderr.length > STDERR_LINES) stderr.shift();
          deps.launch.onStderr(name, line);
        },
      };
      const connection = new McpConnection({
        server,
        open: () => openServer(server, launch),
        connectTimeoutMs: deps.connectTimeoutMs,
        restart: { baseMs: 1, maxMs: 1, maxAttempts: 0 },
        onChange: () => {},
        logger: deps.logger,
      });
      await connection.connect();
      const ms = Math.round(performance.now() - started);
      const report: CheckReport = {
        name: server.name,
        source: server.source,
        file: server.file,
        type: server.spec.type,
        ok: connection.state === 'ready',
        ms,
        tools: connection.tools.map((tool) => ({ name: apiToolName(server.name, tool.name), serverName: tool.name, description: tool.description })),
        problem: connection.state === 'ready' ? null : connection.problem,
        stderr,
      };
      await connection.stop();
      return report;
    }),
  );
}
