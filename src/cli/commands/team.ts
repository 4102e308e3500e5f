import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { requestDaemon } from '../../daemon/control-client.js';
import type { DaemonHealth } from '../../daemon/daemon.js';
import type { StatePaths } from '../../paths.js';
import { isAlive, readLiveDaemon, runsUnsandboxed } from '../../daemon/pid-file.js';
import { TASK_STATUSES, type TaskStatus } from '../../board/task.js';
import type { Member } from '../../roster/roster.js';
import { readConfig } from '../../roster/roster.js';
import { openContext, stateFolderFor } from '../context.js';
import { inotifyUseOf, readInotifyLimits } from '../../proc/inotify.js';
import { printJson, type Io } from '../output.js';
import { parseMemberName, parseNonNegativeInt, parseRole, parseTeammateName } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

function memberView(member: Member) {
  return {
    name: member.name,
    role: member.role,
    status: member.status,
    pid: member.pid != null && isAlive(member.pid) ? member.pid : null,
    task: member.task ?? null,
    restarts: member.restarts ?? 0,
    startedAt: member.startedAt ?? null,
    model: member.model ?? null,
    usage: member.usage ?? null,
    problem: member.problem ?? null,
    retryAt: member.retryAt ?? null,
    wakes: member.wakes ?? 0,
  };
}

/** inotify watches and instances held by the daemon and each running teammate, beside the per-user limits. */
function inotifyView(daemonPid: number | null, members: ReturnType<typeof memberView>[]) {
  const daemon = daemonPid === null ? null : inotifyUseOf(daemonPid);
  const perMember = Object.fromEntries(members.filter((m) => m.pid !== null).map((m) => [m.name, inotifyUseOf(m.pid!)]));
  const all = [...(daemon ? [daemon] : []), ...Object.values(perMember)];
  return {
    instances: all.reduce((sum, use) => sum + use.instances, 0),
    watches: all.reduce((sum, use) => sum + use.watches, 0),
    daemon,
    members: perMember,
    limits: readInotifyLimits(),
  };
}

/** A teammate that cannot work as it should: what is wrong, and when it tries again or what to do. */
function memberProblem(m: ReturnType<typeof memberView>, now: Date): string | null {
  if (m.status === 'budget')
    return `${m.name} stopped and takes no work: ${m.problem ?? 'its token budget is spent'} (raise it: teamd budget ${m.name} <tokens>)`;
  if (m.status === 'errored')
    return `${m.name} is errored and takes no work: ${m.problem ?? 'it crashed too often'} (see: teamd logs ${m.name}; fix it, then: teamd spawn ${m.name} ${m.role})`;
  if (!m.problem) return null;
  if (!m.retryAt) return `${m.name}: ${m.problem}`;
  const inSeconds = Math.max(0, Math.round((Date.parse(m.retryAt) - now.getTime()) / 1000));
  return `${m.name} waits: ${m.problem}; next try at ${m.retryAt.slice(11, 19)} UTC (in ${inSeconds} s)`;
}

function formatMembers(members: ReturnType<typeof memberView>[]): string {
  if (members.length === 0) return 'no teammates (add one: teamd spawn <name> <role>)\n';
  const count = (m: ReturnType<typeof memberView>, key: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'): string =>
    m.usage ? String(m.usage[key]) : '-';
  const rows = members.map((m) => [
    m.name,
    m.role,
    m.status,
    m.pid === null ? '-' : String(m.pid),
    m.task === null ? '-' : String(m.task),
    String(m.restarts),
    count(m, 'inputTokens'),
    count(m, 'outputTokens'),
    count(m, 'cacheReadTokens'),
    count(m, 'cacheWriteTokens'),
    cacheShare(m.usage),
  ]);
  const header = ['NAME', 'ROLE', 'STATUS', 'PID', 'TASK', 'RESTARTS', 'IN', 'OUT', 'CACHE-READ', 'CACHE-WRITE', 'CACHED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return `${[header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** The share of input tokens read from the prompt cache (what makes long conversations cheap). */
function cacheShare(usage: ReturnType<typeof memberView>['usage']): string {
  if (!usage) return '-';
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return input === 0 ? '-' : `${Math.round((100 * usage.cacheReadTokens) / input)}%`;
}

export function spawnCommand(io: Io): Command {
  return withCommonOptions(new Command('spawn').description('add a teammate to the roster and start its process (needs the daemon)'))
    .argument('<name>', "teammate name: a-z, 0-9, _ or -, starting with a letter (not 'lead')", parseTeammateName)
    .argument('<role>', 'its role, one line of up to 64 characters, e.g. coder, reviewer, tester', parseRole)
    .option('--prompt <text>', 'extra instructions for this teammate')
    .option('--model <id>', "model: 'offline' or an Anthropic model name (default: the team's)")
    .option('--plan', 'must submit a plan and get it approved before changing anything')
    .option('--budget-tokens <n>', 'stop calling the model past this many tokens', parseNonNegativeInt)
    .action(async (name: string, role: string, options: CommonOptions & { prompt?: string; model?: string; plan?: boolean; budgetTokens?: number }) => {
      const paths = stateFolderFor(io, options.dir, 'read');
      const member = (await requestDaemon(paths, {
        op: 'spawn',
        name,
        role,
        ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.plan ? { plan: true } : {}),
        ...(options.budgetTokens === undefined ? {} : { budgetTokens: options.budgetTokens }),
      })) as Member;
      if (options.json) printJson(io, member);
      else io.out(`spawned ${member.name} (${member.role}), pid ${member.pid ?? '-'}\n`);
    });
}

export function shutdownCommand(io: Io): Command {
  return withCommonOptions(new Command('shutdown').description('ask a teammate to finish its step and exit; --force skips the request'))
    .argument('<name>', 'teammate name', parseMemberName)
    .option('--force', 'do not wait for an answer: IPC, then SIGTERM, then SIGKILL')
    .action(async (name: string, options: CommonOptions & { force?: boolean }) => {
      const paths = stateFolderFor(io, options.dir, 'read');
      const result = (await requestDaemon(paths, { op: 'shutdown', name, force: options.force === true }, 60_000)) as { rung: string };
      if (options.json) printJson(io, { name, ...result });
      else io.out(result.rung === 'not-running' ? `${name} was not running; it is now shut down\n` : `${name} shut down (${result.rung})\n`);
    });
}

export function budgetCommand(io: Io): Command {
  return withCommonOptions(new Command('budget').description("set a teammate's token budget (or the team's, --team) and wake whoever stopped for one"))
    .usage('<name> <tokens> | --team <tokens>')
    .argument('<name|tokens>', 'teammate name (with --team: the budget)')
    .argument('[tokens]', 'the new budget, in tokens')
    .option('--team', "set the team-wide budget instead of one teammate's")
    .action(async (first: string, second: string | undefined, options: CommonOptions & { team?: boolean }) => {
      if (options.team && second !== undefined) throw new TeamdError('USAGE', 'with --team give only the budget: teamd budget --team <tokens>');
      if (!options.team && second === undefined) throw new TeamdError('USAGE', 'give the budget in tokens: teamd budget <name> <tokens>');
      const name = options.team ? null : parseMemberName(first);
      const tokens = parsePositiveTokens(options.team ? first : second!);
      const paths = stateFolderFor(io, options.dir, 'read');
      await requestDaemon(paths, { op: 'budget', name, tokens });
      if (options.json) printJson(io, { name, tokens });
      else io.out(name === null ? `team budget set to ${tokens} tokens\n` : `${name}'s budget set to ${tokens} tokens\n`);
    });
}

function parsePositiveTokens(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value <= 0)
    throw new TeamdError('USAGE', `a budget is a whole number of tokens above 0, not ${JSON.stringify(raw)}`);
  return value;
}

export function statusCommand(io: Io): Command {
  return withCommonOptions(new Command('status').description('the daemon, the team and the board at a glance (works with the daemon down)')).action(
    async (options: CommonOptions) => {
      const { paths, board } = openContext(io, options.dir, 'read');
      const daemon = readLiveDaemon(paths);
      const health = daemon ? await daemonHealth(paths) : null;
      const members = readConfig(paths.config).members.map(memberView);
      const tasks = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
      const listing = board.list();
      for (const task of listing.tasks) tasks[task.status]++;
      const needsYou = listing.problems.map((problem) => `${problem.file}: ${problem.reason} (skipped by claims; fix it or move it out of the tasks folder)`);
      needsYou.push(...members.flatMap((m) => memberProblem(m, new Date()) ?? []));
      if (daemon && runsUnsandboxed(daemon)) needsYou.push(`commands are not sandboxed: ${daemon.sandbox}`);
      if (health?.rosterWriteFailing)
        needsYou.push(
          `the daemon cannot write ${paths.config} since ${health.rosterWriteFailingSince} (${health.rosterWriteFailing}); it keeps running and retries: free some disk space`,
        );
      if (health?.logWriteFailing) needsYou.push(`the daemon cannot write its log (${health.logWriteFailing}): free some disk space`);
      const inotify = inotifyView(daemon?.pid ?? null, members);
      if (options.json) {
        printJson(io, {
          daemon: daemon ? { pid: daemon.pid, startedAt: daemon.startedAt, dir: daemon.dir, sandbox: daemon.sandbox ?? null } : null,
          members,
          tasks,
          inotify,
          needsYou,
        });
        return;
      }
      io.out(daemon ? `daemon: running, pid ${daemon.pid}, since ${daemon.startedAt}\n` : `daemon: not running (start it: teamd start --dir ${paths.root})\n`);
      if (daemon?.sandbox) io.out(`sandbox: ${daemon.sandbox}\n`);
      io.out(`state:  ${paths.root}\n\n${formatMembers(members)}\n`);
      io.out(`tasks:  ${TASK_STATUSES.map((s) => `${tasks[s]} ${s}`).join(', ')}\n`);
      const limits = inotify.limits ? `; limits per user: ${inotify.limits.maxInstances} instances, ${inotify.limits.maxWatches} watches` : '';
      io.out(
        `watches: ${inotify.watches} inotify watches in ${inotify.instances} instances (daemon ${inotify.daemon?.watches ?? 0}, teammates ${inotify.watches - (inotify.daemon?.watches ?? 0)})${limits}\n`,
      );
      if (needsYou.length > 0) io.out(`\nneeds you:\n${needsYou.map((line) => `  - ${line}\n`).join('')}`);
    },
  );
}

/** What the running daemon reports about itself; null when it does not answer in time. */
async function daemonHealth(paths: StatePaths): Promise<DaemonHealth | null> {
  try {
    const reply = (await requestDaemon(paths, { op: 'ping' }, 2_000)) as { health?: DaemonHealth };
    return reply.health ?? null;
  } catch {
    return null;
  }
}

export function teamCommand(io: Io): Command {
  return withCommonOptions(new Command('team').description('the roster: every teammate and its status')).action((options: CommonOptions) => {
    const { paths } = openContext(io, options.dir, 'read');
    const members = readConfig(paths.config).members.map(memberView);
    if (options.json) printJson(io, members);
    else io.out(formatMembers(members));
  });
}
