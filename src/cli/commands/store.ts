import { Command } from 'commander';
import { TeamdError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { describeStore, parseStore, type StoreSetting } from '../../store/store-setting.js';
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
      if (setting.kind !== 'postgres') throw new TeamdError('USAGE', 'the file store needs no init: give --store postgres://… (or set the store setting)');
      const { migrateStore } = await import('../../store/pg/store-admin.js');
      const outcome = await migrateStore(setting.url, createLogger());
      if (options.json) printJson(io, { store: describeStore(setting), ...outcome });
      else
        io.out(
          outcome.applied.length === 0
            ? `${describeStore(setting)}: schema already at version ${outcome.to}\n`
            : `${describeStore(setting)}: schema version ${outcome.from} -> ${outcome.to} (applied ${outcome.applied.join(', ')})\n`,
        );
    });
  return command;
}
