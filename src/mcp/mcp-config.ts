import path from 'node:path';
import * as z from 'zod';
import { TeamdError } from '../errors.js';
import { readTextIfExists } from '../fs/read-text.js';

/** A server name as Claude Code allows it: letters, digits, `_` and `-`. It is part of every tool name (`mcp__<server>__<tool>`). */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A config file larger than this is refused: it is read whole by every teammate. */
const MAX_CONFIG_BYTES = 256 * 1024;

const env = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string().max(64 * 1024));

const stdioSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1).max(4096),
  args: z
    .array(z.string().max(64 * 1024))
    .max(1000)
    .default([]),
  env: env.default({}),
});
const httpSchema = z.strictObject({
  /** Streamable HTTP, or the older HTTP+SSE transport that many servers still speak. */
  type: z.enum(['http', 'sse']),
  url: z.string().min(1).max(8192),
  headers: z.record(z.string().min(1).max(1024), z.string().max(64 * 1024)).default({}),
});

/** `.mcp.json` as Claude Code writes it: stdio servers (`command`), and servers over streamable HTTP (`"type": "http"`) or HTTP+SSE (`"type": "sse"`). */
export const mcpFileSchema = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()).default({}) });

/** One entry of `mcpServers`, or why it cannot be used (the file's other servers still are). */
function readEntry(name: string, raw: unknown): { spec: ServerConfig['spec'] } | { problem: string } {
  if (!SERVER_NAME.test(name)) return { problem: `${name}: a server name is 1 to 64 letters, digits, _ or -` };
  const type = (raw as { type?: unknown } | null)?.type;
  const parsed = type === 'http' || type === 'sse' ? httpSchema.safeParse(raw) : stdioSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${[name, ...issue.path.map(String)].join('.')}: ${issue.message}` };
  }
  return { spec: 'url' in parsed.data ? parsed.data : { ...parsed.data, type: 'stdio' as const } };
}

export type StdioServer = z.infer<typeof stdioSchema>;
export type HttpServer = z.infer<typeof httpSchema>;

/** Where a server's configuration came from: the person's team folder, or the workspace (which teammates can edit). */
export type ServerSource = 'team' | 'workspace';

export interface ServerConfig {
  readonly name: string;
  readonly source: ServerSource;
  readonly file: string;
  readonly spec: ({ readonly type: 'stdio' } & Omit<StdioServer, 'type'>) | HttpServer;
}

export interface McpConfig {
  readonly servers: readonly ServerConfig[];
  /** Files that were refused, and entries left out, each with why: the rest is used. */
  readonly problems: readonly string[];
}

/** The two files, in the order they are read: the team's entries replace the workspace's of the same name. */
export function mcpConfigFiles(stateDir: string): { workspace: string; team: string } {
  return { workspace: path.join(path.dirname(stateDir), '.mcp.json'), team: path.join(stateDir, 'mcp.json') };
}

/**
 * Reads one file; null when it does not exist. A file that is not JSON, or has no `mcpServers`
 * object, is an error naming the file; an entry that is wrong is left out with a problem naming
 * it, and the file's other servers are used (one odd entry must not cost every server).
 */
export function readMcpFile(file: string, source: ServerSource, problems: string[] = []): ServerConfig[] | null {
  const raw = readTextIfExists(file);
  if (raw === null) return null;
  if (Buffer.byteLength(raw) > MAX_CONFIG_BYTES) throw new TeamdError('INVALID_INPUT', `${file} is over ${MAX_CONFIG_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new TeamdError('INVALID_INPUT', `${file} is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = mcpFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map(String).join('.');
    throw new TeamdError('INVALID_INPUT', `${file}: ${where ? `${where}: ` : ''}${issue.message}`);
  }
  const servers: ServerConfig[] = [];
  for (const [name, rawServer] of Object.entries(parsed.data.mcpServers)) {
    const entry = readEntry(name, rawServer);
    if ('problem' in entry) problems.push(`${file}: mcpServers.${entry.problem}; that server is left out`);
    else servers.push({ name, source, file, spec: entry.spec });
  }
  return servers;
}

/** Both files, merged: a refused file is reported in `problems` and its servers left out. */
export function readMcpConfig(stateDir: string): McpConfig {
  const files = mcpConfigFiles(stateDir);
  const byName = new Map<string, ServerConfig>();
  const problems: string[] = [];
  for (const [source, file] of [
    ['workspace', files.workspace],
    ['team', files.team],
  ] as const) {
    try {
      for (const server of readMcpFile(file, source, problems) ?? []) byName.set(server.name, server);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { servers: [...byName.values()], problems };
}

/** Which servers a teammate uses: the settings' `enabledMcpjsonServers` (when set) minus `disabledMcpjsonServers`. */
export function serversFor(config: McpConfig, choice: { readonly enabled: readonly string[] | null; readonly disabled: readonly string[] }): ServerConfig[] {
  return config.servers.filter((server) => (choice.enabled === null || choice.enabled.includes(server.name)) && !choice.disabled.includes(server.name));
}

/**
 * `${VAR}` and `${VAR:-default}` in a value, as Claude Code expands them. A variable that is
 * not set and has no default is an error naming it.
 */
export function expandVars(value: string, vars: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const found = vars[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    throw new TeamdError('INVALID_INPUT', `${where} uses \${${name}}, which is not set: export it before teamd start, or write \${${name}:-default}`);
  });
}

/** A server's spec with every `${VAR}` expanded (command, args, env, url, headers). */
export function expandServer(server: ServerConfig, vars: NodeJS.ProcessEnv): ServerConfig['spec'] {
  const where = `the server ${server.name} in ${server.file}`;
  const x = (value: string): string => expandVars(value, vars, where);
  const map = (record: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, x(value)]));
  const spec = server.spec;
  if (spec.type !== 'stdio') return { type: spec.type, url: x(spec.url), headers: map(spec.headers) };
  return { type: 'stdio', command: x(spec.command), args: spec.args.map(x), env: map(spec.env) };
}
