import { Command, InvalidArgumentError } from 'commander';
import type { Message } from '../../contracts/message.js';
import type { MailStore } from '../../contracts/mail-store.js';
import { TeamdError } from '../../errors.js';
import { LEAD, USER } from '../../contracts/roster.js';
import { openContext } from '../context.js';
import { untilInterrupted } from '../interrupt.js';
import { formatMessage } from '../format-message.js';
import { printJson, type Io } from '../output.js';
import { parseMemberName } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export function sendCommand(io: Io): Command {
  return withCommonOptions(new Command('send').description('send a message: appends one line to the recipient inbox'))
    .argument('<to>', 'recipient: lead or a teammate on the roster', parseMemberName)
    .argument('<text>', "message content (up to 256 KiB, not empty); '-' reads it from standard input")
    .option('--from <name>', 'sender: lead or a teammate on the roster', parseMemberName, LEAD)
    .option('--type <type>', "message type: only 'message' (protocol messages are sent by teamd itself)", parsePersonType, 'message')
    .action(async (to: string, text: string, options: CommonOptions & { from: string; type: 'message' }) => {
      // The lead's inbox is also where the person writes to the lead agent: only a teammate writing to itself is refused.
      if (options.from === to && to !== LEAD)
        throw new TeamdError(
          'INVALID_INPUT',
          `a message from ${to} to ${to}: nobody writes to itself; send it as the lead (the default) or as another member (--from)`,
        );
      const content = await messageText(io, text);
      const { mailbox } = await openContext(io, options.dir, 'write');
      await requireSender(mailbox, options.from);
      const message = await mailbox.send({ from: options.from, to, type: options.type, content });
      if (options.json) printJson(io, message);
      else io.out(`sent ${message.id} to ${message.to}\n`);
    });
}

export function broadcastCommand(io: Io): Command {
  return withCommonOptions(new Command('broadcast').description('send a message to every member of the team (and the lead) but the sender'))
    .argument('<text>', "message content (up to 256 KiB, not empty); '-' reads it from standard input")
    .option('--from <name>', 'sender: lead or a teammate on the roster', parseMemberName, LEAD)
    .action(async (text: string, options: CommonOptions & { from: string }) => {
      const content = await messageText(io, text);
      const { mailbox } = await openContext(io, options.dir, 'write');
      await requireSender(mailbox, options.from);
      const messages = await mailbox.broadcast({ from: options.from, content });
      if (options.json) printJson(io, messages);
      else io.out(messages.length === 0 ? 'nobody to broadcast to: the roster has no other member\n' : `sent to ${messages.map((m) => m.to).join(', ')}\n`);
    });
}

/** What the person may send by hand: a plain message. Requests, answers and reports are teamd's own, each with its command. */
function parsePersonType(raw: string): 'message' {
  if (raw === 'message') return raw;
  const hint = PROTOCOL_COMMANDS[raw];
  if (hint) throw new InvalidArgumentError(`${raw} is a protocol message that teamd sends itself: ${hint}.`);
  throw new InvalidArgumentError(`the only type a person sends is 'message', got ${JSON.stringify(raw)}.`);
}

const PROTOCOL_COMMANDS: Readonly<Record<string, string>> = {
  shutdown_request: 'use teamd shutdown <name>',
  shutdown_response: 'only the teammate asked answers it',
  plan_approval_request: 'teammates send it when they need a plan approved',
  plan_approval_response: 'use teamd approve <id> or teamd reject <id>',
  permission_request: 'teammates send it when a rule asks for your approval',
  permission_response: 'use teamd approve <id> or teamd reject <id>',
  task_completed: 'teammates report it when they complete a task',
  task_failed: 'teammates report it when a task fails',
  teammate_idle: 'teammates report it',
  teammate_crashed: 'the daemon reports it',
  scheduled: 'use teamd cron add',
  broadcast: 'use teamd broadcast <text>',
};

/** The text argument, or standard input for '-'; never empty (an empty message wakes a teammate for nothing). */
async function messageText(io: Io, text: string): Promise<string> {
  const content = text === '-' ? await io.readStdin() : text;
  if (content.trim() === '')
    throw new TeamdError('USAGE', text === '-' ? 'standard input was empty: nothing to send' : 'the message is empty: nothing to send');
  return content;
}

/** Someone on the team: the lead, or a member on the roster. */
async function requireSender(mailbox: MailStore, from: string): Promise<void> {
  const senders = await mailbox.recipients();
  if (!senders.includes(from))
    throw new TeamdError('UNKNOWN_MEMBER', `no teammate named "${from}" to send as: senders are ${senders.join(', ')}`, { details: { from } });
}

export function inboxCommand(io: Io): Command {
  return withCommonOptions(
    new Command('inbox').description("read a mailbox (never moves a teammate's cursor; inbox lead --unread keeps your own read position)"),
  )
    .argument('<name>', 'whose inbox: lead, user (what the lead agent tells you) or a teammate', parseMemberName)
    .option('--unread', "only messages past the owner's read position; for the lead (you), reading them moves it")
    .option('--follow', 'keep printing new messages as they arrive, like tail -f (Ctrl-C stops)')
    .action(async (name: string, options: CommonOptions & { unread?: boolean; follow?: boolean }) => {
      // The lead's inbox is read by the person: --unread there marks what it showed as read.
      const marksRead = (name === LEAD || name === USER) && options.unread === true;
      const { mailbox } = await openContext(io, options.dir, marksRead ? 'write' : 'read');
      const reader = mailbox.reader({ name });
      const unread = options.unread ? await reader.read() : null;
      const from = unread ? unread.next.offset : 0;
      const print = (message: Message): void => (options.json ? io.out(`${JSON.stringify(message)}\n`) : io.out(formatMessage(message)));
      if (!options.follow) {
        const page = unread ? { messages: unread.messages, skipped: [] } : await mailbox.inbox(name, 0);
        for (const line of page.skipped) io.err(`warning: skipped ${line.at}: ${line.reason}\n`);
        if (options.json) printJson(io, page.messages);
        else if (page.messages.length === 0) io.out(`no ${options.unread ? 'unread ' : ''}messages for ${name}\n`);
        else for (const message of page.messages) print(message);
        if (marksRead && unread) await reader.commit(unread);
        return;
      }
      if (unread) for (const message of unread.messages) print(message);
      await untilInterrupted((signal) => mailbox.follow(name, from, print, signal));
    });
}
