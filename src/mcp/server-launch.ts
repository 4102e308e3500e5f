import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TeamdError } from '../errors.js';
import { expandServer, type ServerConfig } from './mcp-config.js';
import { ServerProcess } from './server-process.js';
import type { HttpFetch } from '../platform/http/http-fetch.js';

export interface LaunchDeps {
  readonly workspace: string;
  /** The teammate's own environment: what `${VAR}` expands from in the team's mcp.json. */
  readonly env: NodeJS.ProcessEnv;
  /** A command's environment (no secrets, with the leftover marker): the base of every server's environment. */
  readonly commandEnv: NodeJS.ProcessEnv;
  /** Wraps a shell line in the servers' sandbox (sandbox.ts, wrapServer): the workspace's servers run in it. */
  readonly sandboxed: (command: string) => { readonly file: string; readonly args: readonly string[]; readonly env?: Readonly<Record<string, string>> };
  /**
   * Whether a workspace server over HTTP may be reached at this host: its URL could have been
   * written by a command, so it gets no more network than commands do (the sandbox's
   * allowedDomains). Absent: any host.
   */
  readonly hostAllowed?: (host: string) => { readonly allowed: true } | { readonly allowed: false; readonly why: string };
  /** Each line a stdio server writes to stderr. */
  readonly onStderr: (server: string, line: string) => void;
  /** The fetch of servers over HTTP; none: Node's. */
  readonly fetch?: HttpFetch;
}

/**
 * A fresh transport for a server. The team's servers (`.team/mcp.json`, which only the person
 * can change) run as configured, with `${VAR}` from the teammate's environment. The workspace's
 * (`.mcp.json`, which a teammate's commands could rewrite) run inside the sandbox, and expand
 * only variables a command could see: a server written by a teammate gains nothing bash lacks.
 */
export function openServer(server: ServerConfig, deps: LaunchDeps): { transport: Transport; process: ServerProcess | null } {
  const trusted = server.source === 'team';
  const spec = expandServer(server, trusted ? deps.env : deps.commandEnv);
  if (spec.type !== 'stdio') {
    let url: URL;
    try {
      url = new URL(spec.url);
    } catch {
      throw new TeamdError('INVALID_INPUT', `the server ${server.name} in ${server.file} has an invalid url ${JSON.stringify(spec.url)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TeamdError('INVALID_INPUT', `the server ${server.name} in ${server.file}: the url must be http or https`);
    const verdict = trusted ? null : deps.hostAllowed?.(url.hostname);
    if (verdict && !verdict.allowed) throw new TeamdError('INVALID_INPUT', `the server ${server.name} in ${server.file} is not reached: ${verdict.why}`);
    const options = { requestInit: { headers: spec.headers }, ...(deps.fetch ? { fetch: deps.fetch as unknown as typeof fetch } : {}) };
    // HTTP+SSE, the transport before streamable HTTP: the SDK's client for it.
    const transport = spec.type === 'sse' ? new SSEClientTransport(url, options) : new StreamableHTTPClientTransport(url, options);
    return { transport, process: null };
  }
  const onStderr = (line: string) => deps.onStderr(server.name, line);
  if (trusted) {
    const launch = { file: spec.command, args: spec.args, cwd: deps.workspace, env: { ...deps.commandEnv, ...spec.env } };
    const process = new ServerProcess(launch, onStderr);
    return { transport: process, process };
  }
  const wrapped = deps.sandboxed(['exec', ...[spec.command, ...spec.args].map(shellQuote)].join(' '));
  const env = { ...deps.commandEnv, ...spec.env, ...wrapped.env };
  const process = new ServerProcess({ file: wrapped.file, args: wrapped.args, cwd: deps.workspace, env }, onStderr);
  return { transport: process, process };
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
