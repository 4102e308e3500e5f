import { Command, InvalidArgumentError } from 'commander';
import { requestDaemon } from '../../daemon/control-client.js';
import { readLiveDaemon } from '../../proc/pid-file.js';
import { TeamdError } from '../../errors.js';
import type { Message } from '../../contracts/message.js';
import { activeRun, isFinalReportOf, writeRunRecord, type RunRecord } from '../../lead/run-record.js';
import { parseTeamdPlan } from '../../lead/teamd-plan.js';
import { LEAD, teammateNameSchema, USER, roleSchema } from '../../contracts/roster.js';
import { firstLine } from '../../text.js';
import { TaskChanges } from '../task-changes.js';
import { goalTasks, settled } from '../../lead/goal-tasks.js';
import { openContext, type CommandContext } from '../context.js';
import { startDetachedDaemon } from '../daemon-process.js';
import { untilInterrupted } from '../interrupt.js';
import type { Io } from '../output.js';
import { parseNonNegativeInt } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export interface RunOptions extends CommonOptions {
  team?: { name: string; role: string }[];
  untilDone?: boolean;
  budgetTokens?: number;
  attach?: boolean;
  queue?: boolean;
}

export function runCommand(io: Io): Command {
  return withCommonOptions(
    new Command('run').description('give the lead agent a goal and follow the team until the lead reports (exit 0 when every task it created is completed)'),
  )
    .argument('[goal]', "the goal, or '-' to read it from standard input")
    .option('--team <list>', 'teammates to spawn first, as name:role,name:role (e.g. alice:coder,bob:reviewer)', parseTeam)
    .option('--until-done', "also wait after the lead's report until every task of the goal has settled")
    .option('--budget-tokens <n>', "the lead agent's token budget", (raw) => positive(parseNonNegativeInt(raw)))
    .option('--attach', 'follow the goal being run again (after Ctrl-C), without giving a new one')
    .option('--queue', 'give the goal even while another is being run (the lead takes it after)')
    .action(async (goalArg: string | undefined, options: RunOptions) => {
      const context = await openContext(io, options.dir, 'write');
      const { paths } = context;
      let record: RunRecord;
      if (options.attach) {
        if (goalArg !== undefined) throw new TeamdError('USAGE', '--attach follows the goal being run: give no goal with it');
        const active = activeRun(paths);
        if (!active) throw new TeamdError('INVALID_INPUT', `no goal is being run in ${paths.root}: give one with teamd run "<goal>"`);
        record = active;
      } else {
        const goal = goalArg === '-' ? await io.readStdin() : (goalArg ?? '');
        if (goal.trim() === '') throw new TeamdError('USAGE', 'the goal is empty: say what the team should do, e.g. teamd run "add a --verbose flag"');
        const plan = parseTeamdPlan(goal);
        if (plan && 'error' in plan) throw new TeamdError('INVALID_INPUT', `the goal cannot be run: ${plan.error}; nothing was created`);
        const active = activeRun(paths);
        if (active && !options.queue)
          throw new TeamdError(
            'ALREADY_RUNNING',
            `a goal is being run already: "${firstLine(active.goal, 80)}" (since ${active.startedAt}); follow it with teamd run --attach, or give this one after it with --queue`,
          );
        record = await handOver(io, context, goal, options);
      }
      await follow(io, context, record, options.untilDone === true);
    });
}

/** Starts what is not running (the daemon, the team asked for, the lead agent) and sends the goal to the lead as the person. */
export async function handOver(io: Io, { paths, mailbox }: CommandContext, goal: string, options: RunOptions): Promise<RunRecord> {
  if (!readLiveDaemon(paths)) {
    const info = await startDetachedDaemon(io, paths, {});
    io.err(`started the teamd daemon (pid ${info.pid})\n`);
  }
  for (const member of options.team ?? []) {
    try {
      await requestDaemon(paths, { op: 'spawn', name: member.name, role: member.role });
      io.out(`spawned ${member.name} (${member.role})\n`);
    } catch (error) {
      if (!(error instanceof TeamdError && error.code === 'ALREADY_RUNNING')) throw error;
    }
  }
  const lead = (await requestDaemon(paths, { op: 'lead', ...(options.budgetTokens ? { budgetTokens: options.budgetTokens } : {}) })) as { started: boolean };
  if (lead.started) io.out('started the lead agent\n');
  // Appends are whole lines: the sizes are where the run's messages begin.
  const userOffset = await mailbox.end(USER);
  const leadOffset = await mailbox.end(LEAD);
  const message = await mailbox.send({ from: USER, to: LEAD, content: goal });
  const record: RunRecord = { goalId: message.id, goal, startedAt: message.timestamp, userOffset, leadOffset };
  writeRunRecord(paths, record);
  io.out(`goal handed to the lead (${message.id.slice(0, 8)}); Ctrl-C detaches and leaves the team working\n`);
  return record;
}

/** Prints the goal's tasks as they change and the messages to and from the lead, until the lead's final report (and, with --until-done, the tasks settle). */
export async function follow(io: Io, { paths, board, mailbox, store }: CommandContext, record: RunRecord, untilDone: boolean): Promise<void> {
  const bell = await store.bell({ team: true, done: true }, { rescanMs: 1000 });
  const changes = new TaskChanges();
  let userAt = record.userOffset;
  let leadAt = record.leadOffset;
  // Set inside the loop below: what ended it.
  const end: { report: Message | null; detached: boolean; daemonGone: boolean } = { report: null, detached: false, daemonGone: false };
  try {
    await untilInterrupted(async (signal) => {
      // Bounded by the person: Ctrl-C ends it; each pass waits for a change (or the 1 s re-check).
      while (!signal.aborted) {
        const tasks = goalTasks((await board.list()).tasks, record);
        for (const line of changes.lines(tasks)) io.out(`${line}\n`);
        const toLead = await mailbox.inbox(LEAD, leadAt);
        leadAt = toLead.next;
        for (const message of toLead.messages)
          if (message.from !== USER) io.out(`${message.from} → lead (${message.type}): ${firstLine(message.content, 100)}\n`);
        const toUser = await mailbox.inbox(USER, userAt);
        userAt = toUser.next;
        for (const message of toUser.messages) {
          if (isFinalReportOf(message, record) && !end.report) end.report = message;
          else if (message.report === 'final') io.out(`lead (on another goal): ${firstLine(message.content, 200)}\n`);
          else io.out(`lead: ${firstLine(message.content, 200)}\n`);
        }
        if (end.report && (!untilDone || tasks.every(settled))) return;
        // Nobody left to finish it: the run ends, not done.
        if (!readLiveDaemon(paths)) {
          end.daemonGone = true;
          return;
        }
        await bell.wait(signal);
      }
      end.detached = true;
    });
  } finally {
    await bell.close();
  }
  const report = end.report;
  if (end.daemonGone && !report) throw new TeamdError('GOAL_NOT_DONE', `the daemon of ${paths.root} stopped before the lead reported: the goal is not done`);
  if (end.detached || !report) {
    io.err('detached: the team works on; follow it again with teamd run --attach\n');
    throw new TeamdError('DETACHED', 'detached');
  }
  io.out(`\nThe lead reports:\n${report.content}\n`);
  const tasks = goalTasks((await board.list()).tasks, record);
  const notDone = tasks.filter((task) => task.status !== 'completed');
  if (tasks.length === 0 || notDone.length > 0)
    throw new TeamdError(
      'GOAL_NOT_DONE',
      tasks.length === 0
        ? 'the goal is not done: the lead created no task'
        : `the goal is not done: ${notDone.map((task) => `task ${task.id} ${task.status}`).join(', ')}`,
    );
}

function parseTeam(raw: string): { name: string; role: string }[] {
  return raw.split(',').map((pair) => {
    const [name, role, ...rest] = pair.trim().split(':');
    if (!name || !role || rest.length > 0)
      throw new InvalidArgumentError(`expected name:role pairs separated by commas (alice:coder,bob:reviewer), got ${JSON.stringify(pair)}.`);
    const validName = teammateNameSchema.safeParse(name);
    if (!validName.success) throw new InvalidArgumentError(`${validName.error.issues[0]?.message ?? 'not a teammate name'}.`);
    const validRole = roleSchema.safeParse(role);
    if (!validRole.success) throw new InvalidArgumentError(`${validRole.error.issues[0]?.message ?? 'not a role'}.`);
    return { name, role };
  });
}

function positive(value: number): number {
  if (value <= 0) throw new InvalidArgumentError('expected a positive number.');
  return value;
}
