import readline from 'node:readline';
import { Command } from 'commander';
import { requestDaemon } from '../../daemon/control-client.js';
import { readLiveDaemon } from '../../proc/pid-file.js';
import { TeamdError } from '../../errors.js';
import { pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { readConfig } from '../../roster/roster.js';
import { LEAD, USER } from '../../contracts/roster.js';
import { firstLine } from '../../text.js';
import { openContext, type CommandContext } from '../context.js';
import { formatMessage } from '../format-message.js';
import { formatColumns, formatTaskTable, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';
import { TaskChanges } from '../task-changes.js';

const HELP = 'type to talk to the lead; /team, /tasks, /inbox, /plans show the team without asking the lead; /quit (or Ctrl-D) leaves';

/**
 * The person's session with the lead agent (the seeds' REPL): a line goes to the lead as a
 * message from `user`; a slash command reads the state folder and answers at once, without a
 * model call; the lead's messages to the person are printed as they arrive.
 */
export function leadCommand(io: Io): Command {
  return withCommonOptions(
    new Command('lead').description('talk with the lead agent: your lines go to it, its replies come back; /team /tasks /inbox /plans need no model'),
  ).action(async (options: CommonOptions) => {
    const context = await openContext(io, options.dir, 'write');
    const input = io.stdin;
    if (!input) throw new TeamdError('USAGE', 'teamd lead reads standard input');
    io.out(`${HELP}\n`);
    const { board, mailbox } = context;
    const bell = await context.store.bell({ team: true, done: true }, { rescanMs: 1000 });
    const stopper = new AbortController();
    let userAt = await mailbox.end(USER);
    // The board as it is now: what changes from here on is shown.
    const changes = new TaskChanges((await board.list()).tasks);
    // The lead's replies and the team's events, printed as they come, until the session ends.
    const printing = (async () => {
      while (!stopper.signal.aborted) {
        const read = await mailbox.inbox(USER, userAt);
        userAt = read.next;
        for (const message of read.messages) io.out(`lead${message.report === 'final' ? ' (report)' : ''}: ${message.content}\n`);
        for (const line of changes.lines((await board.list()).tasks)) io.out(`${line}\n`);
        await bell.wait(stopper.signal);
      }
    })();
    const lines = readline.createInterface({ input, terminal: false });
    try {
      for await (const raw of lines) {
        const line = raw.trim();
        if (line === '') continue;
        if (line === '/quit' || line === '/exit') break;
        try {
          if (line.startsWith('/')) io.out(await answer(line, context));
          else await tell(io, context, line);
        } catch (error) {
          // One bad line does not end the session: say what was wrong and read the next.
          io.err(`teamd: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
    } finally {
      stopper.abort();
      lines.close();
      await printing.catch(() => {});
      await bell.close();
    }
  });
}

/** A slash command, answered from the roster and the store. */
async function answer(line: string, { paths, board, mailbox, store }: CommandContext): Promise<string> {
  switch (line.split(/\s+/)[0]) {
    case '/team': {
      const members = readConfig(paths.config).members;
      if (members.length === 0) return 'no teammates\n';
      return formatColumns(
        ['NAME', 'ROLE', 'STATUS', 'TASK'],
        members.map((m) => [m.name, m.role, m.status, m.task ? String(m.task) : '-']),
      );
    }
    case '/tasks':
      return formatTaskTable((await board.list()).tasks);
    case '/inbox': {
      const messages = (await mailbox.inbox(USER, 0)).messages.slice(-20);
      return messages.length === 0 ? 'no messages from the lead\n' : messages.map((message) => formatMessage(message)).join('');
    }
    case '/plans': {
      const waiting = await pendingPlanRequests(mailbox, board, paths, scanFileOf(store, paths));
      if (waiting.length === 0) return 'no plan or permission request is waiting\n';
      return formatColumns(
        ['ID', 'KIND', 'TEAMMATE', 'TASK', 'WHAT'],
        waiting.map((r) => [r.requestId.slice(0, 8), r.kind, r.from, r.taskId === null ? '-' : String(r.taskId), firstLine(r.plan, 80)]),
      );
    }
    default:
      return `unknown command ${JSON.stringify(line)}: ${HELP}\n`;
  }
}

/** A line for the lead: the lead agent is started if it is not running (the daemon must be). */
async function tell(io: Io, { paths, mailbox }: CommandContext, line: string): Promise<void> {
  if (!readLiveDaemon(paths)) throw new TeamdError('DAEMON_NOT_RUNNING', `no teamd daemon is running for ${paths.root}: start it with teamd start`);
  const lead = (await requestDaemon(paths, { op: 'lead' })) as { started: boolean };
  if (lead.started) io.out('(started the lead agent)\n');
  await mailbox.send({ from: USER, to: LEAD, content: line });
}
