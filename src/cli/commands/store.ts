import { Command } from 'commander';
import { isTeamdError, TeamdError } from '../../errors.js';
import { createLogger } from '../../log/logger.js';
import { parseStore, redactUrl, sameStore, sharedStoreUrl, startFlagsFor, storeSetting } from '../../store/store-setting.js';
import { openDump } from '../../store/open/open-dump.js';
import { type StoreSetting } from '../../contracts/team-store.js';
import { copyTeam } from '../../store/store-copy.js';
import { readConfig } from '../../roster/roster.js';
import { type TeamSettings } from '../../contracts/roster.js';
import { commandStore, stateFolderFor } from '../context.js';
import { printJson, type Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

interface StoreOptions extends CommonOptions {
  store?: string;
}

/** The store a store command works on: --store, else the team's (TEAMD_STORE, else the setting). */
function chosenStore(io: Io, options: StoreOptions): StoreSetting {
  // With --store, no state folder is needed: a database is made ready before any team uses it.
  if (options.store !== undefined) return parseStore(options.store, { team: 'team', host: 'host' });
  return commandStore(io, stateFolderFor(io, options.dir, 'read'));
}

export function storeCommand(io: Io): Command {
  const command = new Command('store').description('the shared store of the board and the mailboxes: files (default) or PostgreSQL (docs/stores.md)');
  withCommonOptions(command.command('init').description("create or upgrade teamd's tables in a PostgreSQL store (idempotent; teamd start does it too)"))
    .option('--store <url>', "postgres://user:password@host:5432/database (default: the team's store setting)")
    .action(async (options: StoreOptions) => {
      const setting = chosenStore(io, options);
      const url = sharedStoreUrl(setting, 'the file store needs no init: give --store postgres://… (or set the store setting)');
      const { migrateStore } = await import('../../store/postgres/store-admin.js');
      const outcome = await migrateStore(url, createLogger());
      // The tables are the database's, not one team's: named by the URL alone (outside a team there is no team to name).
      const where = redactUrl(url);
      if (options.json) printJson(io, { store: where, ...outcome });
      else
        io.out(
          outcome.applied.length === 0
            ? `${where}: schema already at version ${outcome.to}\n`
            : `${where}: schema version ${outcome.from} -> ${outcome.to} (applied ${outcome.applied.join(', ')})\n`,
        );
    });
  withCommonOptions(
    command
      .command('copy')
      .description(
        "copy the team's tasks, messages, cursors and roster between stores, with the daemons stopped (the target must be empty; counts are verified)",
      ),
  )
    .requiredOption('--from <store>', 'files (this state folder) or postgres://…')
    .requiredOption('--to <store>', 'files (this state folder) or postgres://…')
    .option('--team <name>', "the team's name in the PostgreSQL store (default: the team setting, else the workspace folder's name)")
    .option('--host <name>', 'the host its members are recorded on in the PostgreSQL store (default: the host setting, else the hostname)')
    .action(async (options: CommonOptions & { from: string; to: string; team?: string; host?: string }) => {
      const paths = stateFolderFor(io, options.dir, 'write');
      let settings: TeamSettings;
      try {
        settings = readConfig(paths.config).settings;
      } catch (error) {
        if (!isTeamdError(error, 'CONFIG_CORRUPT')) throw error;
        throw new TeamdError('CONFIG_CORRUPT', `${error.message}; the copy needs the roster: fix it first`);
      }
      // Each side as the team would name it: --team and --host first, then the settings, then the folder and hostname.
      const chosen = (raw: string): StoreSetting =>
        storeSetting(paths, { store: raw, team: options.team ?? settings.team, host: options.host ?? settings.host }, {});
      const from = chosen(options.from);
      const to = chosen(options.to);
      if (sameStore(from, to)) throw new TeamdError('USAGE', '--from and --to name the same store: copy from one store to another (files and postgres://…)');
      const logger = createLogger();
      const source = await openDump(from, { paths, leaseMs: settings.hostLeaseMs, logger });
      const target = await openDump(to, { paths, leaseMs: settings.hostLeaseMs, logger }).catch(async (error: unknown) => {
        await source.close();
        throw error;
      });
      try {
        const counts = await copyTeam(source.store, target.store);
        if (options.json) printJson(io, { from: source.store.describe, to: target.store.describe, ...counts });
        else
          io.out(
            `copied ${counts.tasks} tasks, ${counts.messages} messages in ${counts.inboxes} inboxes, ${counts.cursors} cursors and ${counts.members} members from ${source.store.describe} to ${target.store.describe} (counts verified)\nuse it: teamd start ${startFlagsFor(to)}\n`,
          );
      } finally {
        await source.close();
        await target.close();
      }
    });
  return command;
}
