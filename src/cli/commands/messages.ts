import { Command, Option } from 'commander';
import { readInboxFrom } from '../../inbox/inbox-file.js';
import { parseInboxChunk } from '../../inbox/inbox-parser.js';
import { followLines } from '../../watch/follow-lines.js';
import { CursorStore } from '../../inbox/cursor.js';
import { MESSAGE_TYPES, type Message, type MessageType } from '../../inbox/message.js';
import { TeamdError } from '../../errors.js';
import { LEAD } from '../../roster/roster.js';
import { openContext } from '../context.js';
import { untilInterrupted } from '../interrupt.js';
import { formatMessage } from '../format-message.js';
import { printJson, type Io } from '../output.js';
import { parseMemberName } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export function sendCommand(io: Io): Command {
  return withCommonOptions(new Command('send').description('send a message: appends one line to the recipient inbox'))
    .argument('<to>', 'recipient: lead or a teammate on the roster', parseMemberName)
    .argument('<text>', "message content (up to 256 KiB); '-' reads it from standard input")
    .option('--from <name>', 'sender', parseMemberName, LEAD)
    .addOption(new Option('--type <type>', 'message type').choices(MESSAGE_TYPES).default('message'))
    .option('--request-id <id>', 'for shutdown and plan approval messages: the request answered (a new id otherwise)')
    .option('--approve', 'for a response: approve the request')
    .option('--reject', 'for a response: reject the request')
    .action(
      async (
        to: string,
        text: string,
        options: CommonOptions & { from: string; type: MessageType; requestId?: string; approve?: boolean; reject?: boolean },
      ) => {
        if (options.approve && options.reject) throw new TeamdError('USAGE', 'give --approve or --reject, not both');
        const content = text === '-' ? await io.readStdin() : text;
        const { mailbox } = openContext(io, options.dir, 'write');
        const approve = options.approve ? true : options.reject ? false : undefined;
        const message = mailbox.send({ from: options.from, to, type: options.type, content, requestId: options.requestId, approve });
        if (options.json) printJson(io, message);
        else io.out(`sent ${message.id} to ${message.to}\n`);
      },
    );
}

export function broadcastCommand(io: Io): Command {
  return withCommonOptions(new Command('broadcast').description('send a message to every member of the team (and the lead) but the sender'))
    .argument('<text>', "message content (up to 256 KiB); '-' reads it from standard input")
    .option('--from <name>', 'sender', parseMemberName, LEAD)
    .action(async (text: string, options: CommonOptions & { from: string }) => {
      const content = text === '-' ? await io.readStdin() : text;
      const { mailbox } = openContext(io, options.dir, 'write');
      const messages = mailbox.broadcast({ from: options.from, content });
      if (options.json) printJson(io, messages);
      else io.out(messages.length === 0 ? 'nobody to broadcast to: the roster has no other member\n' : `sent to ${messages.map((m) => m.to).join(', ')}\n`);
    });
}

export function inboxCommand(io: Io): Command {
  return withCommonOptions(new Command('inbox').description("read a mailbox (never moves its owner's cursor)"))
    .argument('<name>', 'whose inbox: lead or a teammate', parseMemberName)
    .option('--unread', 'only messages past the owner’s cursor (not yet handled by them)')
    .option('--follow', 'keep printing new messages as they arrive, like tail -f (Ctrl-C stops)')
    .action(async (name: string, options: CommonOptions & { unread?: boolean; follow?: boolean }) => {
      const { paths, logger } = openContext(io, options.dir, 'read');
      const file = paths.inboxFile(name);
      const from = options.unread ? new CursorStore(paths.cursorFile(name), logger).read().offset : 0;
      const print = (message: Message): void => (options.json ? io.out(`${JSON.stringify(message)}\n`) : io.out(formatMessage(message)));
      if (!options.follow) {
        const read = readInboxFrom(file, from);
        for (const line of read.skipped) io.err(`warning: skipped a line at byte ${line.offset} of ${file}: ${line.reason}\n`);
        if (options.json)
          printJson(
            io,
            read.messages.map((parsed) => parsed.message),
          );
        else if (read.messages.length === 0) io.out(`no ${options.unread ? 'unread ' : ''}messages for ${name}\n`);
        else for (const { message } of read.messages) print(message);
        return;
      }
      // Each complete line is parsed like any inbox line (a torn fragment glued to a record is recovered).
      const onLine = (line: string): void => {
        const parsed = parseInboxChunk(Buffer.from(`${line}\n`), 0);
        for (const skipped of parsed.skipped) io.err(`warning: skipped a line of ${file}: ${skipped.reason}\n`);
        for (const { message } of parsed.messages) print(message);
      };
      await untilInterrupted((signal) => followLines(file, from, onLine, signal, logger));
    });
}
