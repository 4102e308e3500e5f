import { Command, InvalidArgumentError } from 'commander';
import { TeamdError } from '../../errors.js';
import { readLiveDaemon } from '../../proc/pid-file.js';
import { createLogger } from '../../log/logger.js';
import { checkServers } from '../../mcp/mcp-check.js';
import { readMcpConfig, serversFor, type ServerConfig } from '../../mcp/mcp-config.js';
import { readPublishedServers } from '../../mcp/published-servers.js';
import type { StatePaths } from '../../paths.js';
import { readConfig } from '../../roster/roster.js';
import { commandEnv, envPolicyOf } from '../../sandbox/command-env.js';
import { SPAWNED_BY_ENV, spawnMarker } from '../../supervisor/leftovers.js';
import { mcpChoiceFor, settingsSourceFor } from '../../teammate/policy-wiring.js';
import { teammateSandbox } from '../../teammate/sandbox-wiring.js';
import { firstLine } from '../../text.js';
import { forTerminal } from '../terminal-text.js';
import { stateFolderFor } from '../context.js';
import { memberView } from '../member-view.js';
import { formatColumns, printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import path from 'node:path';

export function mcpCommand(io: Io): Command {
  const mcp = new Command('mcp').description('MCP servers (.mcp.json, .team/mcp.json): what is configured, who uses it, and whether it starts');
  mcp.addCommand(listCommand(io));
  mcp.addCommand(checkCommand(io));
  return mcp;
}

function listCommand(io: Io): Command {
  return withCommonOptions(new Command('list').description('configured servers, their state in each teammate that uses them, and their tools')).action(
    (options: CommonOptions) => {
      const paths = stateFolderFor(io, options.dir, 'read');
      const config = configOrThrow(paths);
      const roster = readConfig(paths.config);
      const daemonRunning = readLiveDaemon(paths) !== null;
      const members = roster.members.map((member) => {
        const view = memberView(member, roster.settings.model, daemonRunning);
        const used = serversFor(config, mcpChoiceFor(paths, member.role, io.env.HOME)).map((s) => s.name);
        const published = view.pid !== null ? readPublishedServers(paths, member.name) : null;
        return { member, used, published };
      });
      const servers = config.servers.map((server) => ({
        name: server.name,
        type: server.spec.type,
        source: server.source,
        file: server.file,
        target: target(server),
        teammates: members
          .filter((m) => m.used.includes(server.name))
          .map((m) => {
            const seen = m.published?.servers.find((s) => s.name === server.name);
            return {
              name: m.member.name,
              state: seen?.state ?? 'not running',
              problem: seen?.problem ?? null,
              pid: seen?.pid ?? null,
              restarts: seen?.restarts ?? 0,
              tools: seen?.tools ?? [],
            };
          }),
      }));
      if (options.json) return printJson(io, { servers });
      if (servers.length === 0)
        return io.out(
          `no MCP servers configured (add them to ${path.relative(io.cwd, path.dirname(paths.root)) || '.'}/.mcp.json or ${paths.root}/mcp.json)\n`,
        );
      io.out(
        formatColumns(
          ['SERVER', 'TYPE', 'FROM', 'RUNS'],
          servers.map((s) => [s.name, s.type, s.source === 'team' ? 'team' : 'workspace (sandboxed)', firstLine(s.target, 70)]),
        ),
      );
      const rows = servers.flatMap((s) =>
        s.teammates.map((t) => [s.name, t.name, t.state + (t.restarts > 0 ? ` (${t.restarts} restarts)` : ''), firstLine(t.problem ?? t.tools.join(', '), 90)]),
      );
      io.out(rows.length === 0 ? '\nno teammate uses them\n' : `\n${formatColumns(['SERVER', 'TEAMMATE', 'STATE', 'TOOLS / PROBLEM'], rows)}`);
    },
  );
}

function checkCommand(io: Io): Command {
  return withCommonOptions(new Command('check').description('start each configured server once: list what it offers, or say why it failed'))
    .argument('[servers...]', 'only these servers')
    .option('--timeout <ms>', 'how long a server gets to answer initialize (default: the mcpConnectTimeoutMs setting)', parseMs)
    .action(async (names: string[], options: CommonOptions & { timeout?: number }) => {
      const paths = stateFolderFor(io, options.dir, 'read');
      const config = configOrThrow(paths);
      const unknown = names.filter((name) => !config.servers.some((s) => s.name === name));
      if (unknown.length > 0)
        throw new TeamdError(
          'INVALID_INPUT',
          `no MCP server named ${unknown.join(', ')}; configured: ${config.servers.map((s) => s.name).join(', ') || 'none'}`,
        );
      const chosen = names.length > 0 ? config.servers.filter((s) => names.includes(s.name)) : config.servers;
      const settings = readConfig(paths.config).settings;
      const marker = { name: SPAWNED_BY_ENV, value: spawnMarker(process.pid, paths.root) };
      const workspace = path.dirname(paths.root);
      const logger = createLogger();
      const settingsFiles = settingsSourceFor(paths, '', io.env.HOME, logger);
      // The workspace's servers start as a teammate's would: in its sandbox, the network on its leash.
      const sandbox = await teammateSandbox({
        name: `check-${process.pid}`,
        mode: settings.sandbox,
        workspace,
        stateDir: paths.root,
        runDir: paths.runDir,
        execPath: process.execPath,
        configFile: paths.config,
        env: io.env,
        envPolicy: envPolicyOf(settings),
        marker,
        settings: () => settingsFiles.current().sandbox,
        reportRefused: () => {},
        logger,
      });
      let reports: Awaited<ReturnType<typeof checkServers>>;
      try {
        reports = await checkServers(chosen, {
          launch: {
            workspace,
            env: io.env,
            commandEnv: commandEnv(io.env, envPolicyOf(settings), marker),
            sandboxed: (command) => sandbox.wrapServer(command),
            hostAllowed: (host) => sandbox.hostAllowed(host),
            onStderr: () => {},
          },
          connectTimeoutMs: options.timeout ?? settings.mcpConnectTimeoutMs,
          logger,
        });
      } finally {
        await sandbox.close();
      }
      if (options.json) printJson(io, reports);
      else if (reports.length === 0) io.out('no MCP servers configured\n');
      else
        for (const r of reports)
          io.out(
            r.ok
              ? `${r.name} (${r.type}, ${r.source}): ok in ${r.ms} ms, ${r.tools.length} tools: ${r.tools.map((t) => t.name).join(', ') || 'none'}\n`
              : `${r.name} (${r.type}, ${r.source}): FAILED after ${r.ms} ms: ${r.problem ?? 'unknown'}\n${
                  r.stderr.length > 0 ? `  its last lines on stderr:\n${r.stderr.map((line) => `    ${forTerminal(line)}\n`).join('')}` : ''
                }`,
          );
      const failed = reports.filter((r) => !r.ok);
      if (failed.length > 0)
        throw new TeamdError('MCP_FAILED', `${failed.length} of ${reports.length} MCP servers failed: ${failed.map((r) => r.name).join(', ')}`);
    });
}

/** The configuration; a refused file is an error naming it (the list would be wrong without it). */
function configOrThrow(paths: StatePaths): ReturnType<typeof readMcpConfig> {
  const config = readMcpConfig(paths.root);
  if (config.problems.length > 0) throw new TeamdError('INVALID_INPUT', config.problems.join('; '));
  return config;
}

function target(server: ServerConfig): string {
  return server.spec.type === 'stdio' ? [server.spec.command, ...server.spec.args].join(' ') : server.spec.url;
}

function parseMs(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 600_000) throw new InvalidArgumentError('give milliseconds, 1 to 600000');
  return value;
}
