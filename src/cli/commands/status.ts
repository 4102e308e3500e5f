import { describeStore } from '../../store/store-setting.js';
import { Command } from 'commander';
import { requestDaemon } from '../../daemon/control-client.js';
import type { DaemonHealth } from '../../daemon/daemon.js';
import { readLiveDaemon, runsUnsandboxed, runsWithoutNetworkLeash } from '../../proc/pid-file.js';
import { TASK_STATUSES } from '../../contracts/task.js';
import { noTasks } from '../../domain/board-counts.js';
import { type BoardCounts } from '../../contracts/board-types.js';
import { isTeamdError, type TeamdError } from '../../errors.js';
import { pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { runningJobCounts } from '../../jobs/job-listing.js';
import { readPublishedTodos } from '../../teammate/published-todos.js';
import type { StatePaths } from '../../paths.js';
import { inotifyUseOf, readInotifyLimits } from '../../proc/inotify.js';
import { readConfig } from '../../roster/roster.js';
import { type TeamConfig } from '../../contracts/roster.js';
import { openContext } from '../context.js';
import { formatDuration, formatMembers, memberView, type MemberView } from '../member-view.js';
import { otherHostsMembers } from '../team-members.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { firstLine } from '../../text.js';
import { formatLogTime } from '../log-format.js';

/** Failed tasks listed one by one under "needs you"; past this, a count and the command that lists them. */
const FAILED_SHOWN = 5;

export function statusCommand(io: Io): Command {
  return withCommonOptions(new Command('status').description('the daemon, the team and the board at a glance (works with the daemon down)')).action(
    async (options: CommonOptions) => {
      const { paths, board, mailbox, store } = await openContext(io, options.dir, 'read');
      const now = new Date();
      const daemon = readLiveDaemon(paths);
      const { health, notAnswering } = daemon ? await daemonHealth(paths) : { health: null, notAnswering: null };
      const needsYou: string[] = notAnswering ? [notAnswering] : [];
      const { config, error: rosterError } = readRoster(paths);
      if (rosterError) needsYou.push(rosterError.message);
      const members = (config?.members ?? []).map((m) => memberView(m, config?.settings.model ?? 'offline', daemon !== null));
      const storeName = describeStore(store.setting);
      const ownHost = store.shared?.host ?? null;
      // A shared store: the other hosts' daemons and members (their pids are theirs: never checked here).
      const elsewhere = await otherHostsMembers(store, members, config?.settings.model ?? 'offline');
      const hosts = elsewhere.hosts;
      members.push(...elsewhere.members);
      for (const host of hosts.filter((h) => h.lost))
        needsYou.push(
          `host ${host.host} is lost (no heartbeat since ${formatLogTime(Date.parse(host.heartbeatAt))}): its teammates' tasks went back to the board`,
        );
      let storeError: string | null = null;
      // An unreachable store is reported like everything else: the rest of the status is still shown.
      // Counted, not listed: thousands of finished tasks are not read one by one (store/files/board-counts.ts).
      const counted = await board.counts(FAILED_SHOWN).catch((error: unknown): BoardCounts => {
        if (!isTeamdError(error, 'STORE_UNAVAILABLE')) throw error;
        storeError = error.message;
        // A database without teamd's tables answers: it needs setting up, not waiting for.
        needsYou.push(
          notSetUp(error.message)
            ? `${error.message}`
            : `${error.message}: the teammates wait for it (they neither spin nor fail their tasks); check the server named by the store setting`,
        );
        return { counts: noTasks(), failed: [], problems: [], held: [] };
      });
      const tasks = counted.counts;
      const stopped = members.filter((m) => m.status === 'stopped' || m.status === 'unknown');
      if (stopped.length > 0)
        needsYou.push(
          `the daemon is not running: ${stopped.map((m) => `${m.name} (${m.status})`).join(', ')} stopped with it; start it again to resume them: teamd start --dir ${paths.root}`,
        );
      needsYou.push(...counted.problems.map((problem) => `${problem.file}: ${problem.reason} (skipped by claims; fix it or move it out of the tasks folder)`));
      for (const task of counted.failed)
        needsYou.push(
          `task ${task.id} failed${task.owner ? ` (${task.owner})` : ''}: ${firstLine(task.result ?? 'no reason given', 120)} (teamd task show ${task.id})`,
        );
      if (tasks.failed > counted.failed.length) needsYou.push(`${tasks.failed - counted.failed.length} more failed tasks: teamd task list --status failed`);
      // Only what the roster can vouch for: an unreadable one names no member.
      if (config) needsYou.push(...heldByStrangers(counted.held, members));
      const plans = storeError ? [] : await pendingPlanRequests(mailbox, store.board, paths, scanFileOf(store, paths));
      for (const plan of plans)
        needsYou.push(
          `${plan.from} waits for your answer to ${plan.kind === 'permission' ? 'permission request' : 'plan'} ${plan.requestId.slice(0, 8)}${plan.taskId ? ` (task ${plan.taskId})` : ''}, ${formatDuration(now.getTime() - Date.parse(plan.at))} old: teamd plans`,
        );
      needsYou.push(...members.flatMap((m) => memberProblem(m, now) ?? []));
      if (daemon && runsUnsandboxed(daemon)) needsYou.push(`commands are not sandboxed: ${daemon.sandbox}`);
      else if (daemon && runsWithoutNetworkLeash(daemon)) needsYou.push(`commands reach any host: ${daemon.sandbox}`);
      if (health?.rosterWriteFailing)
        needsYou.push(
          `the daemon cannot write ${paths.config} since ${health.rosterWriteFailingSince ? formatLogTime(Date.parse(health.rosterWriteFailingSince)) : '?'} (${health.rosterWriteFailing}); it keeps running and retries: free some disk space`,
        );
      if (health?.logWriteFailing) needsYou.push(`the daemon cannot write its log (${health.logWriteFailing}): free some disk space`);
      const inotify = inotifyView(daemon?.pid ?? null, members);
      const tokens = teamTokens(members);
      const runningJobs = Object.fromEntries(runningJobCounts(paths));
      const jobsRunning = Object.values(runningJobs).reduce((sum, n) => sum + n, 0);
      const uptimeSeconds = daemon ? Math.max(0, Math.floor((now.getTime() - Date.parse(daemon.startedAt)) / 1000)) : null;
      if (options.json) {
        printJson(io, {
          daemon: daemon
            ? {
                pid: daemon.pid,
                startedAt: daemon.startedAt,
                uptimeSeconds,
                dir: daemon.dir,
                sandbox: daemon.sandbox ?? null,
                model: config?.settings.model ?? null,
                answering: notAnswering === null,
              }
            : null,
          store: { kind: store.setting.kind, name: storeName, reachable: storeError === null, host: ownHost, hosts },
          members: members.map((m) => ({ ...m, todos: readPublishedTodos(paths, m.name) })),
          tasks,
          tokens,
          plansWaiting: plans.length,
          jobs: { running: jobsRunning, byTeammate: runningJobs },
          inotify,
          needsYou,
        });
      } else {
        io.out(
          daemon
            ? `daemon: running${notAnswering ? ' but NOT ANSWERING' : ''}, pid ${daemon.pid}, up ${formatDuration(uptimeSeconds! * 1000)} (since ${formatLogTime(Date.parse(daemon.startedAt))}), team model ${config?.settings.model ?? '?'}\n`
            : `daemon: not running (start it: teamd start --dir ${paths.root})\n`,
        );
        if (daemon?.sandbox) io.out(`sandbox: ${daemon.sandbox}\n`);
        io.out(`state:  ${paths.root}\n`);
        io.out(`store:  ${storeName}${storeError ? (notSetUp(storeError) ? ' (NOT SET UP: teamd store init)' : ' (UNREACHABLE)') : ''}\n`);
        if (hosts.length > 0)
          io.out(
            `hosts:  ${hosts.map((h) => `${h.host}${h.host === ownHost ? ' (this one)' : ''} ${h.lost ? 'LOST' : h.stopped ? 'stopped' : 'up'}, heartbeat ${formatDuration(now.getTime() - Date.parse(h.heartbeatAt))} ago`).join('; ')}\n`,
          );
        io.out(`\n${formatMembers(members, now)}\n`);
        io.out(`tasks:  ${TASK_STATUSES.map((s) => `${tasks[s]} ${s}`).join(', ')}\n`);
        io.out(
          `tokens: ${tokens.input} in, ${tokens.output} out, ${tokens.cacheRead} read from cache${config?.settings.teamBudgetTokens ? ` (team budget ${config.settings.teamBudgetTokens})` : ''}\n`,
        );
        io.out(
          `jobs:   ${jobsRunning} background job${jobsRunning === 1 ? '' : 's'} running${
            jobsRunning > 0
              ? ` (${Object.entries(runningJobs)
                  .map(([name, n]) => `${name} ${n}`)
                  .join(', ')}; teamd jobs)`
              : ''
          }\n`,
        );
        const refused = members.filter((m) => m.netRefused > 0);
        const refusedCount = refused.reduce((sum, m) => sum + m.netRefused, 0);
        io.out(
          `network: ${refusedCount} request${refusedCount === 1 ? '' : 's'} of commands refused by the proxy${
            refused.length > 0 ? ` (${refused.map((m) => `${m.name} ${m.netRefused}`).join(', ')}; teamd logs <name> names each)` : ''
          }\n`,
        );
        const limits = inotify.limits ? `; limits per user: ${inotify.limits.maxInstances} instances, ${inotify.limits.maxWatches} watches` : '';
        io.out(
          `watches: ${inotify.watches} inotify watches in ${inotify.instances} instances (daemon ${inotify.daemon?.watches ?? 0}, teammates ${inotify.watches - (inotify.daemon?.watches ?? 0)})${limits}\n`,
        );
        if (needsYou.length > 0) io.out(`\nneeds you:\n${needsYou.map((line) => `  - ${line}\n`).join('')}`);
      }
      // A roster that cannot be read is shown like everything else, then fails the command (exit 1, one line on stderr).
      if (rosterError) throw rosterError;
    },
  );
}

/** The roster, or the error that says why config.json cannot be read: the rest of the status is still shown. */
function readRoster(paths: StatePaths): { config: TeamConfig | null; error: TeamdError | null } {
  try {
    return { config: readConfig(paths.config), error: null };
  } catch (error) {
    if (!isTeamdError(error, 'CONFIG_CORRUPT')) throw error;
    return { config: null, error };
  }
}

function teamTokens(members: readonly MemberView[]): { input: number; output: number; cacheRead: number; cacheWrite: number } {
  const sum = (key: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'): number =>
    members.reduce((total, m) => total + (m.usage ? m.usage[key] : 0), 0);
  return { input: sum('inputTokens'), output: sum('outputTokens'), cacheRead: sum('cacheReadTokens'), cacheWrite: sum('cacheWriteTokens') };
}

/** What the running daemon reports about itself, or why it did not answer in time (its socket gone: neither). */
async function daemonHealth(paths: StatePaths): Promise<{ health: DaemonHealth | null; notAnswering: string | null }> {
  try {
    const reply = (await requestDaemon(paths, { op: 'ping' }, 2_000)) as { health?: DaemonHealth };
    return { health: reply.health ?? null, notAnswering: null };
  } catch (error) {
    return { health: null, notAnswering: isTeamdError(error, 'PROTOCOL') && error.details.notAnswering === true ? error.message : null };
  }
}

/** inotify watches and instances held by the daemon and each running teammate, beside the per-user limits. */
function inotifyView(daemonPid: number | null, members: readonly MemberView[]) {
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
function memberProblem(m: MemberView, now: Date): string | null {
  if (m.status === 'budget')
    return `${m.name} stopped and takes no work: ${m.problem ?? 'its token budget is spent'} (raise it: teamd budget ${m.name} <tokens>)`;
  if (m.status === 'errored')
    return `${m.name} is errored and takes no work: ${m.problem ?? 'it crashed too often'} (see: teamd logs ${m.name}; fix it, then: teamd spawn ${m.name} ${m.role})`;
  if (!m.problem) return null;
  if (!m.retryAt) return `${m.name}: ${m.problem}`;
  const inSeconds = Math.max(0, Math.round((Date.parse(m.retryAt) - now.getTime()) / 1000));
  return `${m.name} waits: ${m.problem}; next try at ${m.retryAt.slice(11, 19)} UTC (in ${inSeconds} s)`;
}

/**
 * Tasks in progress held by a name that is no member: a person working one by hand (teamd task
 * claim --owner), or a task nobody works on (the roster edited, a task file copied in). The
 * daemon releases only its members' tasks, so the person is asked.
 */
function heldByStrangers(held: BoardCounts['held'], members: readonly { readonly name: string }[]): string[] {
  const names = new Set(members.map((m) => m.name));
  return held
    .filter((task) => !names.has(task.owner))
    .map((task) => `task ${task.id} is held by ${task.owner}, who is not a teammate: if nobody works on it, put it back with teamd task release ${task.id}`);
}

/** The store answered, but has no teamd tables yet (store/postgres/transaction.ts says so). */
function notSetUp(message: string): boolean {
  return message.includes('run teamd store init');
}
