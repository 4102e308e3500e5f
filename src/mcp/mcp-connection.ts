import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log/logger.js';
import type { ServerConfig } from './mcp-config.js';
import type { ServerProcess } from './server-process.js';

export type ConnectionState = 'connecting' | 'ready' | 'restarting' | 'failed' | 'stopped';

/** A server's tool as it listed it (the parts teamd uses). */
export interface ServerTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly readOnly: boolean;
}

export interface RestartPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
  /** Failed restarts in a row before the server is left failed (connect_mcp tries again). */
  readonly maxAttempts: number;
}

export const DEFAULT_RESTART: RestartPolicy = { baseMs: 500, maxMs: 30_000, maxAttempts: 5 };
/** How teamd names itself to a server in initialize. */
const CLIENT_INFO = { name: 'teamd', version: '0.1.0' };
/** Pages of tools/list read at most: a server that pages forever stops here. */
const MAX_PAGES = 20;

export interface ConnectionDeps {
  readonly server: ServerConfig;
  /** A fresh transport for each connection (a stdio server's process with it); throws when it cannot be built (a variable not set). */
  readonly open: () => { transport: Transport; process: ServerProcess | null };
  readonly connectTimeoutMs: number;
  readonly restart: RestartPolicy;
  /** The state or the tools changed: the tool list for the next request, and what teamd mcp list shows. */
  readonly onChange: () => void;
  readonly logger: Logger;
}

/**
 * One MCP server of one teammate, over the official SDK client: connects (initialize, then
 * tools/list), refreshes its tools on `tools/list_changed`, and restarts it with backoff when
 * it dies. While it is down its tools answer that they are unavailable, and why.
 */
export class McpConnection {
  state: ConnectionState = 'stopped';
  /** Why it is not ready, for the model, the log and teamd mcp list. */
  problem: string | null = null;
  tools: readonly ServerTool[] = [];
  /** Times it was restarted after dying. */
  restarts = 0;
  private client: Client | null = null;
  private process: ServerProcess | null = null;
  private connecting: Promise<void> | null = null;
  private attempts = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly deps: ConnectionDeps) {}

  get server(): ServerConfig {
    return this.deps.server;
  }

  get name(): string {
    return this.deps.server.name;
  }

  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  /** A refresh of the tool list under way (after tools/list_changed), or nothing: the next model call waits for it. */
  pending(): Promise<void> {
    return this.refreshing ?? Promise.resolve();
  }

  /** Connects unless connected or connecting; resolves when it is ready or has failed (never rejects). */
  connect(): Promise<void> {
    if (this.state === 'ready') return Promise.resolve();
    if (this.connecting) return this.connecting;
    this.stopped = false;
    this.clearTimer();
    this.attempts = 0;
    return this.attempt();
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== 'ready') throw new Error(this.unavailable());
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
      })) as CallToolResult;
    } catch (error) {
      // An HTTP server that went away shows as a failed request, not a closed stream: it is reconnected like a crashed process.
      if (!(error instanceof McpError) && !signal.aborted && this.deps.server.spec.type !== 'stdio' && this.client === client) this.lost(describe(error));
      throw error;
    }
  }

  /** Why its tools cannot be called now. */
  unavailable(): string {
    const why = this.problem ? `: ${this.problem}` : '';
    switch (this.state) {
      case 'connecting':
        return `the MCP server ${this.name} is still starting`;
      case 'restarting':
        return `the MCP server ${this.name} is restarting${why}; try again in a little while, or do without it`;
      case 'failed':
        return `the MCP server ${this.name} is unavailable${why}. connect_mcp {"server": "${this.name}"} tries again`;
      case 'stopped':
        return `the MCP server ${this.name} is not connected; connect_mcp {"server": "${this.name}"} connects it`;
      case 'ready':
        return `the MCP server ${this.name} is ready`;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.closeClient();
    this.state = 'stopped';
    this.problem = null;
  }

  private attempt(): Promise<void> {
    this.state = this.restarts > 0 || this.attempts > 0 ? 'restarting' : 'connecting';
    this.deps.onChange();
    const run = this.connectOnce()
      .then(() => {
        this.state = 'ready';
        this.problem = null;
        this.attempts = 0;
        this.deps.logger.info({ mcp: this.name, tools: this.tools.length, pid: this.pid }, 'MCP server connected');
      })
      .catch(async (error: unknown) => {
        await this.closeClient();
        if (this.stopped) return;
        this.problem = describe(error);
        this.attempts++;
        this.deps.logger.warn({ mcp: this.name, why: this.problem, attempt: this.attempts }, 'MCP server could not be connected');
        if (this.restarts > 0 && this.attempts < this.deps.restart.maxAttempts) this.schedule();
        else this.state = 'failed';
      })
      .finally(() => {
        this.connecting = null;
        this.deps.onChange();
      });
    this.connecting = run;
    return run;
  }

  private async connectOnce(): Promise<void> {
    const { transport, process } = this.deps.open();
    this.process = process;
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    // tools/list_changed: the list is fetched again, and the next model call waits for it (pending()).
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client !== client) return;
      const refresh = this.listTools(client)
        .then((tools) => {
          if (this.client !== client) return;
          this.tools = tools;
          this.deps.logger.info({ mcp: this.name, tools: tools.length }, 'MCP server tool list changed');
          this.deps.onChange();
        })
        .catch((error: unknown) => this.deps.logger.warn({ mcp: this.name, err: error }, 'MCP server tool list could not be refreshed'))
        .finally(() => {
          if (this.refreshing === refresh) this.refreshing = null;
        });
      this.refreshing = refresh;
    });
    this.client = client;
    client.onclose = () => {
      if (this.client === client) this.lost(process?.describeExit() ?? 'the connection closed');
    };
    try {
      await client.connect(transport, { timeout: this.deps.connectTimeoutMs });
    } catch (error) {
      if (isTimeout(error)) throw new Error(`it did not answer initialize within ${this.deps.connectTimeoutMs} ms`, { cause: error });
      if (process && !process.pid) throw error;
      throw new Error(`${describe(error)}${process ? ` (the server ${process.describeExit()})` : ''}`, { cause: error });
    }
    this.tools = await this.listTools(client);
  }

  private async listTools(client: Client): Promise<ServerTool[]> {
    const tools: ServerTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.deps.connectTimeoutMs });
      tools.push(...listed.tools.map(serverTool));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** It died or its connection broke: restarted after a backoff, its tools unavailable meanwhile. */
  private lost(why: string): void {
    if (this.stopped || this.state !== 'ready') return;
    this.deps.logger.warn({ mcp: this.name, why }, 'MCP server stopped; restarting it');
    this.problem = `it stopped (${why})`;
    this.restarts++;
    this.state = 'restarting';
    const client = this.client;
    this.client = null;
    void client?.close().catch(() => {});
    void this.process?.close();
    this.deps.onChange();
    this.schedule();
  }

  private schedule(): void {
    this.state = 'restarting';
    const delay = Math.min(this.deps.restart.maxMs, this.deps.restart.baseMs * 2 ** this.attempts);
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) void this.attempt();
    }, delay);
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async closeClient(): Promise<void> {
    const client = this.client;
    const process = this.process;
    this.client = null;
    await client?.close().catch(() => {});
    await process?.close();
  }
}

function serverTool(tool: McpTool): ServerTool {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema,
    readOnly: tool.annotations?.readOnlyHint === true,
  };
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === -32001;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 500);
}
