import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../log/logger.js';
import { connectMcpTool } from '../tools/mcp-connect-tool.js';
import { toolError, type Tool, type ToolResult, type ToolSource } from '../contracts/tool.js';
import type { ServerConfig } from './mcp-config.js';
import { DEFAULT_RESTART, McpConnection, type ConnectionState, type RestartPolicy } from './mcp-connection.js';
import { apiToolName, MAX_SCHEMA_BYTES, mcpTool } from './mcp-tool.js';
import type { ServerProcess } from './server-process.js';

export interface McpServersDeps {
  /** The servers this teammate uses (its role's choice already made). */
  readonly servers: readonly ServerConfig[];
  readonly open: (server: ServerConfig) => { transport: Transport; process: ServerProcess | null };
  readonly connectTimeoutMs: number;
  readonly toolTimeoutMs: number;
  readonly restart?: RestartPolicy;
  readonly logger: Logger;
  /** Told whenever a server's state or tools change (teamd mcp list reads what it publishes). */
  readonly onChange?: (view: readonly ServerView[]) => void;
}

/** Tools offered per server: each one is in every request, and a server listing thousands would fill the context. */
export const MAX_TOOLS_PER_SERVER = 128;

interface Built {
  readonly listed: Tool[];
  readonly byName: Map<string, Tool>;
  /** Each MCP tool's server. */
  readonly owners: Map<string, string>;
}

/** One server as teamd mcp list shows it. */
export interface ServerView {
  readonly name: string;
  readonly source: ServerConfig['source'];
  readonly type: 'stdio' | 'http' | 'sse';
  readonly state: ConnectionState;
  readonly problem: string | null;
  readonly pid: number | null;
  readonly restarts: number;
  /** The names the model sees. */
  readonly tools: readonly string[];
}

/**
 * A teammate's MCP servers: all connect when it starts, and their tools join its tool list as
 * `mcp__<server>__<tool>` (plus connect_mcp). The list is rebuilt only when a server's state
 * or tools change; a tool whose server is down stays known, and answers why.
 */
export class McpServers implements ToolSource {
  private readonly connections: McpConnection[];
  private tools: Built | null = null;
  private starting: Promise<void> = Promise.resolve();

  constructor(private readonly deps: McpServersDeps) {
    this.connections = deps.servers.map(
      (server) =>
        new McpConnection({
          server,
          open: () => deps.open(server),
          connectTimeoutMs: deps.connectTimeoutMs,
          restart: deps.restart ?? DEFAULT_RESTART,
          logger: deps.logger,
          onChange: () => this.changed(),
        }),
    );
  }

  get count(): number {
    return this.connections.length;
  }

  /** Starts connecting every server; `settled` resolves when each is ready or has failed. */
  start(): void {
    this.starting = Promise.all(this.connections.map((connection) => connection.connect())).then(() => {});
  }

  /**
   * Resolves once the servers started at start-up are ready or failed, and every tool list
   * refresh under way is done (each bounded by the connect timeout): the next model call sees them.
   */
  async settled(): Promise<void> {
    await this.starting;
    await Promise.all(this.connections.map((connection) => connection.pending()));
  }

  listed(): readonly Tool[] {
    return this.build().listed;
  }

  find(name: string): Tool | undefined {
    return this.build().byName.get(name);
  }

  /** connect_mcp: connects a server that is not connected, and says what it offers. */
  async connect(server: string): Promise<ToolResult> {
    const connection = this.connections.find((c) => c.name === server);
    if (!connection) {
      const names = this.connections.map((c) => c.name);
      return toolError(`no MCP server ${JSON.stringify(server)} is configured for you; yours: ${names.join(', ') || 'none'}`);
    }
    await connection.connect();
    if (connection.state !== 'ready') return toolError(connection.unavailable());
    const names = this.view().find((v) => v.name === server)?.tools ?? [];
    return { content: `${server} is connected; its tools: ${names.join(', ') || 'none'}` };
  }

  view(): ServerView[] {
    const { owners } = this.build();
    return this.connections.map((c) => ({
      name: c.name,
      source: c.server.source,
      type: c.server.spec.type,
      state: c.state,
      problem: c.problem,
      pid: c.pid,
      restarts: c.restarts,
      tools: [...owners].filter(([, server]) => server === c.name).map(([name]) => name),
    }));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.stop()));
  }

  private changed(): void {
    this.tools = null;
    this.deps.onChange?.(this.view());
  }

  private build(): Built {
    if (this.tools) return this.tools;
    const listed: Tool[] = this.connections.length > 0 ? [connectMcpTool] : [];
    const byName = new Map<string, Tool>(listed.map((tool) => [tool.name, tool]));
    const owners = new Map<string, string>();
    for (const connection of this.connections) {
      if (connection.tools.length > MAX_TOOLS_PER_SERVER)
        this.deps.logger.warn(
          { mcp: connection.name, tools: connection.tools.length },
          `MCP server lists over ${MAX_TOOLS_PER_SERVER} tools; only its first ${MAX_TOOLS_PER_SERVER} are offered`,
        );
      for (const tool of connection.tools.slice(0, MAX_TOOLS_PER_SERVER)) {
        let name = apiToolName(connection.name, tool.name);
        if (byName.has(name)) name = apiToolName(connection.name, `${tool.name}\0`);
        if (JSON.stringify(tool.inputSchema).length > MAX_SCHEMA_BYTES) {
          this.deps.logger.warn({ mcp: connection.name, tool: tool.name }, `MCP tool left out: its input schema is over ${MAX_SCHEMA_BYTES} bytes`);
          continue;
        }
        const made = mcpTool(connection, tool, name, this.deps.toolTimeoutMs);
        byName.set(name, made);
        owners.set(name, connection.name);
        // Known while its server is down (it answers why); offered only while the server is ready.
        if (connection.state === 'ready') listed.push(made);
      }
    }
    this.tools = { listed, byName, owners };
    return this.tools;
  }
}
