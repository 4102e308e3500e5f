import { Argument, Command } from 'commander';
import { LEAD } from '../../contracts/roster.js';
import { ScheduleStore } from '../../cron/schedule-store.js';
import { pendingPlanRequests, scanFileOf } from '../../inbox/request-scan.js';
import { memberNames, readConfig } from '../../roster/roster.js';
import { WORD_KINDS, type WordKind } from '../completion-words.js';
import { openContext, openLocal } from '../context.js';
import type { Io } from '../output.js';
import { withCommonOptions, type CommonOptions } from './common.js';

/**
 * `teamd __complete <kind>`: the words a completion script offers for an argument (completion-words.ts),
 * one a line, read from the state folder and the store as a read-only command reads them. Hidden
 * from help; it says nothing on stderr and exits 0 when it cannot read (a shell's completion must
 * never print an error into the line being typed).
 */
export function completeWordsCommand(io: Io): Command {
  return withCommonOptions(new Command('__complete').description('the words shell completion offers for an argument'))
    .addArgument(new Argument('<kind>', 'what the argument names').choices(WORD_KINDS))
    .action(async (kind: WordKind, options: CommonOptions) => {
      try {
        const words = await wordsOf(io, kind, options.dir);
        if (words.length > 0) io.out(`${words.join('\n')}\n`);
      } catch {
        // No words: a folder that is not there, a store that cannot be reached.
      }
    });
}

async function wordsOf(io: Io, kind: WordKind, dir: string | undefined): Promise<string[]> {
  switch (kind) {
    case 'members': {
      const { paths } = await openLocal(io, dir, 'read');
      return [...new Set([LEAD, ...memberNames(readConfig(paths.config))])];
    }
    case 'cron': {
      const { paths, locker } = await openLocal(io, dir, 'read');
      return new ScheduleStore(paths, locker).read().jobs.map((job) => job.id);
    }
    case 'tasks': {
      const { store } = await openContext(io, dir, 'read');
      try {
        return (await store.board.list()).tasks.map((task) => String(task.id));
      } finally {
        await store.close();
      }
    }
    case 'requests': {
      const { paths, store } = await openContext(io, dir, 'read');
      try {
        return (await pendingPlanRequests(store.mail, store.board, paths, scanFileOf(store, paths))).map((request) => request.requestId.slice(0, 8));
      } finally {
        await store.close();
      }
    }
  }
}
