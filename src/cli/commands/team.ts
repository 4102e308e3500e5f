import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { requestDaemon } from '../../daemon/control-client.js';
import { readLiveDaemon } from '../../proc/pid-file.js';
import type { Member } from '../../contracts/roster.js';
import { readConfig } from '../../roster/roster.js';
import { openContext, stateFolderFor } from '../context.js';
import { otherHostOf, otherHostsMembers } from '../team-members.js';
import { askHost } from '../host-request.js';
import { formatMembers, memberView } from '../member-view.js';
import { printJson, type Io } from '../output.js';
import { parseMemberName, parseNonNegativeInt, parseRole, parseTeammateName } from '../parsers.js';
import { withCommonOptions, type CommonOptions } from './common.js';

export function spawnCommand(io: Io): Command {
  return withCommonOptions(new Command('spawn').description('add a teammate to the roster and start its process (needs the daemon)'))
    .argument('<name>', "teammate name: a-z, 0-9, _ or -, starting with a letter (not 'lead')", parseTeammateName)
    .argument('<role>', 'its role, one line of up to 64 characters, e.g. coder, reviewer, tester', parseRole)
    .option('--prompt <text>', 'extra instructions for this teammate')
    .option('--model <id>', "model: 'offline' or an Anthropic model name (default: the team's)")
    .option('--plan', 'must submit a plan and get it approved before changing anything')
    .option('--budget-tokens <n>', 'stop calling the model past this many tokens', parseNonNegativeInt)
    .option('--host <name>', "a shared store: spawn it on this host's daemon (default: this one)")
    .action(
      async (
        name: string,
        role: string,
        options: CommonOptions & { prompt?: string; model?: string; plan?: boolean; budgetTokens?: number; host?: string },
      ) => {
        const spec = {
          op: 'spawn' as const,
          name,
          role,
          ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
          ...(options.model === undefined ? {} : { model: options.model }),
          ...(options.plan ? { plan: true } : {}),
          ...(options.budgetTokens === undefined ? {} : { budgetTokens: options.budgetTokens }),
        };
        let member: Member;
        if (options.host === undefined) member = (await requestDaemon(stateFolderFor(io, options.dir, 'read'), spec)) as Member;
        else {
          const { store } = await openContext(io, options.dir, 'read');
          const own = store.shared?.host === options.host;
          member = (own ? await requestDaemon(stateFolderFor(io, options.dir, 'read'), spec) : await askHost(store, options.host, spec)) as Member;
        }
        if (options.json) printJson(io, member);
        else io.out(`spawned ${member.name} (${member.role})${options.host ? ` on ${options.host}` : ''}, pid ${member.pid ?? '-'}\n`);
      },
    );
}

export function shutdownCommand(io: Io): Command {
  return withCommonOptions(new Command('shutdown').description('ask a teammate to finish its step and exit; --force skips the request'))
    .argument('<name>', 'teammate name', parseMemberName)
    .option('--force', 'do not wait for an answer: IPC, then SIGTERM, then SIGKILL')
    .action(async (name: string, options: CommonOptions & { force?: boolean }) => {
      const { paths, store } = await openContext(io, options.dir, 'read');
      // Each host's daemon stops its own teammates: a pid means something only on its host.
      // Another host's teammate: its daemon is asked through the store.
      const elsewhere = await otherHostOf(store, name).catch(() => null);
      const request = { op: 'shutdown' as const, name, force: options.force === true };
      const result = (elsewhere ? await askHost(store, elsewhere, request) : await requestDaemon(paths, request, 60_000)) as { rung: string };
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

export function teamCommand(io: Io): Command {
  return withCommonOptions(new Command('team').description("the roster: every teammate and its status (a shared store's: every host's)")).action(
    async (options: CommonOptions) => {
      const { paths, store } = await openContext(io, options.dir, 'read');
      const config = readConfig(paths.config);
      const members = config.members.map((m) => memberView(m, config.settings.model, readLiveDaemon(paths) !== null));
      members.push(...(await otherHostsMembers(store, members, config.settings.model)).members);
      if (options.json) printJson(io, members);
      else io.out(formatMembers(members, new Date()));
    },
  );
}
